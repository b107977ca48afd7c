"""What a class does to the grader, measured through the HTTP API (see docs/benchmarks.md)."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from app.bench.server import Deployment
from app.config import ROOT

EXERCISES = ROOT / "exercises"
SEQUENTIAL = [
    ("numpy gather", "position-embedding-gather", "numpy"),
    ("torch gather", "position-embedding-gather", "torch"),
    ("jax gather", "position-embedding-gather", "jax"),
    ("flax forward", "learned-pos-embed-forward", "jax"),
]


@dataclass(frozen=True)
class Answer:
    """One submission a student might send, and whether the grader must accept it."""

    exercise: str
    framework: str
    code: str
    right: bool


def answers(exercise: str, framework: str) -> tuple[Answer, list[Answer]]:
    """The model solution and the wrong answers a class sends most: the declared mistakes."""
    folder = EXERCISES / exercise
    solution = (folder / "solutions" / f"{framework}.py").read_text()
    right = Answer(exercise, framework, solution, True)
    mistakes = yaml.safe_load((folder / "mistakes.yaml").read_text())["mistakes"]
    wrong = [
        Answer(exercise, framework, m["code"], False)
        for m in mistakes
        if m["framework"] == framework
    ]
    starter = folder / "starter" / f"{framework}.py"
    if not wrong and starter.is_file():
        wrong = [Answer(exercise, framework, starter.read_text(), False)]
    return right, wrong


def offered() -> list[tuple[str, str]]:
    """Every (exercise, framework) the course offers."""
    pairs = []
    for meta in sorted(EXERCISES.glob("*/exercise.yaml")):
        data = yaml.safe_load(meta.read_text())
        pairs += [(data["slug"], fw) for fw in data["frameworks"]]
    return pairs


@dataclass
class Outcome:
    """One graded submission as the student met it."""

    label: str
    ms: float
    verdict: str
    right: bool
    sent_s: float = 0.0  # when it was sent, seconds into the scenario (lab only)

    @property
    def correct(self) -> bool:
        """Right answers accepted, wrong ones not, nothing lost or failed by the platform."""
        if self.verdict in ("lost", "internal_error"):
            return False
        return (self.verdict == "accepted") == self.right


def _send(run: Deployment, answer: Answer, label: str) -> Outcome:
    ms, verdict = run.api.submit_and_wait(answer.exercise, answer.framework, answer.code)
    return Outcome(label, ms, verdict, answer.right)


def cold(run: Deployment) -> list[Outcome]:
    """Right after start: a NumPy and a Flax wrong answer, sent as soon as /healthz answers."""
    since_start = (time.monotonic() - run.started) * 1000
    picks = [
        ("cold numpy", answers("position-embedding-gather", "numpy")[1][0]),
        ("cold flax", answers("learned-pos-embed-forward", "jax")[1][0]),
    ]
    with ThreadPoolExecutor(len(picks)) as pool:
        outcomes = list(pool.map(lambda p: _send(run, p[1], p[0]), picks))
    for outcome in outcomes:  # what the student saw counts from their submission; keep both
        outcome.label += f" (+{since_start / 1000:.1f} s after start)"
    return outcomes


def sequential(run: Deployment, samples: int, kinds: list[str] | None = None) -> list[Outcome]:
    """Back to back, no think time, right and wrong answers alternating."""
    outcomes = []
    for label, exercise, framework in SEQUENTIAL:
        if kinds and label not in kinds:
            continue
        right, wrong = answers(exercise, framework)
        for n in range(samples):
            answer = right if n % 2 == 0 else wrong[(n // 2) % len(wrong)]
            outcomes.append(_send(run, answer, label))
    return outcomes


def burst(run: Deployment, flax: int, numpy: int) -> tuple[list[Outcome], float]:
    """`flax` Flax submissions at once, then `numpy` NumPy ones at once: (outcomes, NumPy/s)."""
    flax_answer = answers("learned-pos-embed-forward", "jax")[0]
    with ThreadPoolExecutor(max(flax, 1)) as pool:
        outcomes = list(pool.map(lambda _: _send(run, flax_answer, "burst flax"), range(flax)))
    numpy_answer = answers("position-embedding-gather", "numpy")[0]
    started = time.perf_counter()
    with ThreadPoolExecutor(max(numpy, 1)) as pool:
        outcomes += pool.map(lambda _: _send(run, numpy_answer, "burst numpy"), range(numpy))
    rate = numpy / (time.perf_counter() - started) if numpy else 0.0
    return outcomes, rate


def lab(
    run: Deployment,
    *,
    rate: float,
    seconds: float,
    wrong_share: float = 0.6,
    seed: int = 7,
    kill_worker_at: float | None = None,
    frameworks: tuple[str, ...] | None = None,
) -> list[Outcome]:
    """Poisson arrivals over every exercise and framework, mostly wrong answers."""
    rng = random.Random(seed)  # noqa: S311 - arrival times, not secrets
    pairs = [(ex, fw) for ex, fw in offered() if frameworks is None or fw in frameworks]
    outcomes: list[Outcome] = []
    lock = threading.Lock()
    threads: list[threading.Thread] = []

    def one(answer: Answer, label: str) -> None:
        sent_s = time.monotonic() - started
        outcome = _send(run, answer, label)
        outcome.sent_s = sent_s
        with lock:
            outcomes.append(outcome)

    started = time.monotonic()
    at = rng.expovariate(rate)
    killed = False
    while at < seconds:
        if kill_worker_at is not None and not killed and at >= kill_worker_at:
            time.sleep(max(0.0, started + kill_worker_at - time.monotonic()))
            run.kill_worker()
            killed = True
        time.sleep(max(0.0, started + at - time.monotonic()))
        exercise, framework = rng.choice(pairs)
        right, wrong = answers(exercise, framework)
        answer = rng.choice(wrong) if wrong and rng.random() < wrong_share else right
        thread = threading.Thread(target=one, args=(answer, f"lab {exercise} {framework}"))
        thread.start()
        threads.append(thread)
        at += rng.expovariate(rate)
    for thread in threads:
        thread.join(360)
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """Count, p50, p95, max, and what went wrong, of a list of outcomes."""
    times = sorted(o.ms for o in outcomes)
    if not times:
        return {"count": 0}

    def pct(q: float) -> float:
        return round(times[min(len(times) - 1, round(q * (len(times) - 1)))], 1)

    return {
        "count": len(outcomes),
        "p50_ms": pct(0.5),
        "p95_ms": pct(0.95),
        "max_ms": round(times[-1], 1),
        "lost": sum(o.verdict == "lost" for o in outcomes),
        "wrong_verdicts": sum(not o.correct for o in outcomes),
    }


def write_log(outcomes: list[Outcome], path: Path) -> None:
    """Every outcome, one line each (kept beside the JSON for a closer look)."""
    rows = sorted(outcomes, key=lambda o: o.sent_s)
    path.write_text(
        "sent_s\tms\tverdict\tright\tlabel\n"
        + "".join(f"{o.sent_s:.1f}\t{o.ms:.1f}\t{o.verdict}\t{o.right}\t{o.label}\n" for o in rows)
    )
