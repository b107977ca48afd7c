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

from app.bench import corpus
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
    source: str = "declared"  # "declared" (solution, declared mistake) or a corpus file


def answers(exercise: str, framework: str) -> tuple[Answer, list[Answer]]:
    """The model solution and the wrong answers a class sends most: the declared mistakes."""
    folder = EXERCISES / exercise
    solution = (folder / "solutions" / f"{framework}.py").read_text()
    right = Answer(exercise, framework, solution, True)
    declared = folder / "mistakes.yaml"
    mistakes = yaml.safe_load(declared.read_text())["mistakes"] if declared.is_file() else []
    wrong = [
        Answer(exercise, framework, m["code"], False)
        for m in mistakes
        if m["framework"] == framework
    ]
    starter = folder / "starter" / f"{framework}.py"
    if not wrong and starter.is_file():
        wrong = [Answer(exercise, framework, starter.read_text(), False)]
    return right, wrong


def drawn(exercise: str, framework: str) -> tuple[list[Answer], list[Answer]]:
    """What a class sends: the corpus's rewrites and undeclared wrong answers (bench/corpus),
    or the declared answers where an exercise and framework have no corpus."""
    found = [e for e in corpus.entries(exercise) if e.framework == framework]
    if not found:
        right, wrong = answers(exercise, framework)
        return [right], wrong
    made = [Answer(exercise, framework, e.code, e.right, e.file) for e in found]
    return [a for a in made if a.right], [a for a in made if not a.right]


def _cycle(items: list[Answer], seed: int) -> list[Answer]:
    """A fixed shuffle: one run meets the files in an order that does not follow the manifest."""
    shuffled = list(items)
    random.Random(seed).shuffle(shuffled)  # noqa: S311 - an order, not a secret
    return shuffled


def offered() -> list[tuple[str, str]]:
    """Every (exercise, framework) the course offers but the training labs, whose verdict is an
    experiment of several seconds by design, not the under-a-second answer the stream measures."""
    pairs = []
    for meta in sorted(EXERCISES.glob("*/exercise.yaml")):
        data = yaml.safe_load(meta.read_text())
        if "experiment" in data:
            continue
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
    new_compilation: bool | None = None  # JAX on a warmed server: did it compile anything new
    source: str = "declared"
    framework: str = ""
    queued_ms: float | None = None  # submitted until a grading thread took it (its lane's queue)
    since_start_ms: float | None = None  # `cold`: from the server's start to this verdict

    @property
    def correct(self) -> bool:
        """Right answers accepted, wrong ones not, nothing lost or failed by the platform."""
        if self.verdict in ("lost", "internal_error"):
            return False
        return (self.verdict == "accepted") == self.right


def _send(run: Deployment, answer: Answer, label: str) -> Outcome:
    ms, event = run.api.submit_and_follow(answer.exercise, answer.framework, answer.code)
    compiled = event.get("new_compilation")
    return Outcome(
        label,
        ms,
        str(event["verdict"]),
        answer.right,
        new_compilation=compiled,
        source=answer.source,
        framework=answer.framework,
        queued_ms=event.get("queued_ms"),
    )


def cold(run: Deployment, kind: str = "cold") -> list[Outcome]:
    """Right after start: a NumPy and a Flax wrong answer, sent as soon as /healthz answers.

    Each outcome's `since_start_ms` is from the server's start to its verdict."""
    since_start = (time.monotonic() - run.started) * 1000
    picks = [
        (f"{kind} numpy", answers("position-embedding-gather", "numpy")[1][0]),
        (f"{kind} flax", answers("learned-pos-embed-forward", "jax")[1][0]),
    ]
    with ThreadPoolExecutor(len(picks)) as pool:
        outcomes = list(pool.map(lambda p: _send(run, p[1], p[0]), picks))
    for outcome in outcomes:  # what the student saw counts from their submission; keep both
        outcome.since_start_ms = since_start + outcome.ms
    return outcomes


def restart(run: Deployment) -> list[Outcome]:
    """The class was at work (the first start's two answers), the server restarts, and the same
    two answers are sent again as soon as /healthz answers."""
    run.restart_server()
    return cold(run, "restart")


def alternating(rights: list[Answer], wrongs: list[Answer], count: int) -> list[Answer]:
    """`count` answers, right and wrong alternating, each list cycled in its own fixed order."""
    rights, wrongs = _cycle(rights, 1), _cycle(wrongs, 2)
    picked = []
    for n in range(count):
        pool = rights if n % 2 == 0 or not wrongs else wrongs
        picked.append(pool[(n // 2) % len(pool)])
    return picked


def sequential(
    run: Deployment, samples: int, kinds: list[str] | None = None, *, declared: bool = False
) -> list[Outcome]:
    """Back to back, no think time, right and wrong answers alternating, drawn from the corpus.

    With `declared`, each kind that has a corpus is also sent its model solution and declared
    mistakes alone, as a separate line labelled "(declared)": the programs the server warmed.
    """
    outcomes = []
    for label, exercise, framework in SEQUENTIAL:
        if kinds and label not in kinds:
            continue
        rights, wrongs = drawn(exercise, framework)
        for answer in alternating(rights, wrongs, samples):
            outcomes.append(_send(run, answer, label))
        if declared and rights[0].source != "declared":
            right, wrong = answers(exercise, framework)
            for answer in alternating([right], wrong, samples):
                outcomes.append(_send(run, answer, f"{label} (declared)"))
    return outcomes


def burst(
    run: Deployment, flax: int, numpy: int, *, declared: bool = False
) -> tuple[list[Outcome], float]:
    """`flax` different Flax submissions from the corpus at once (the model solution each time
    with `declared`), then `numpy` NumPy ones at once: (outcomes, NumPy/s)."""
    if declared:
        flax_answers = [answers("learned-pos-embed-forward", "jax")[0]] * flax
        flax_label = "burst flax (declared)"
    else:
        rights, wrongs = drawn("learned-pos-embed-forward", "jax")
        flax_answers, flax_label = alternating(rights, wrongs, flax), "burst flax"
    with ThreadPoolExecutor(max(flax, 1)) as pool:
        outcomes = list(pool.map(lambda a: _send(run, a, flax_label), flax_answers))
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
        rights, wrongs = drawn(exercise, framework)
        wanted_wrong = rng.random() < wrong_share
        answer = rng.choice(wrongs) if wrongs and wanted_wrong else rng.choice(rights)
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

    jax = [o.new_compilation for o in outcomes if o.framework == "jax" and o.verdict != "lost"]
    known = [c for c in jax if c is not None]
    queued = sorted(o.queued_ms for o in outcomes if o.queued_ms is not None)
    return {
        # waiting in the lane's queue (submitted until a grading thread took the job)
        "queued_p50_ms": round(queued[len(queued) // 2], 1) if queued else None,
        "queued_max_ms": round(queued[-1], 1) if queued else None,
        "count": len(outcomes),
        "p50_ms": pct(0.5),
        "p95_ms": pct(0.95),
        "max_ms": round(times[-1], 1),
        "lost": sum(o.verdict == "lost" for o in outcomes),
        "wrong_verdicts": sum(not o.correct for o in outcomes),
        # Of the jobs run on a warmed JAX server, how many needed a new compilation.
        "warm_jax_jobs": len(known),
        "new_compilations": sum(known),
        # JAX jobs that ran out of time on the warmed server before showing either way.
        "jax_unknown": len(jax) - len(known),
    }


def write_log(outcomes: list[Outcome], path: Path) -> None:
    """Every outcome, one line each (kept beside the JSON for a closer look)."""
    rows = sorted(outcomes, key=lambda o: o.sent_s)
    path.write_text(
        "sent_s\tms\tverdict\tright\tnew_compilation\tlabel\tsource\n"
        + "".join(
            f"{o.sent_s:.1f}\t{o.ms:.1f}\t{o.verdict}\t{o.right}\t{o.new_compilation}"
            f"\t{o.label}\t{o.source}\n"
            for o in rows
        )
    )
