"""The `idle` scenario: one submission at a time, each when the pool is full again, against a
fresh sandbox per job. It measures the best case, not what a class meets (see scenarios.py)."""

from __future__ import annotations

import re
import statistics
import time

from app.bench.scenarios import answers, summary
from app.bench.server import POOL, Deployment
from app.config import ROOT

KINDS = [
    ("numpy gather", "position-embedding-gather", "numpy"),
    ("torch gather", "position-embedding-gather", "torch"),
    ("flax forward", "learned-pos-embed-forward", "jax"),
]


def _ready(run: Deployment) -> dict[str, int]:
    text = run.api.call("GET", "/metrics")
    found = re.findall(r'course_pool_ready\{framework="([\w:-]+)"\} (\d+)', text)
    return {key: int(count) for key, count in found}


def wait_pool(run: Deployment, timeout: float = 300) -> None:
    """Until every pool key has its ready interpreters in every grading process (/metrics)."""
    processes = max(1, len(run.workers))  # /metrics sums the workers' pools
    wanted = {fw: n * processes for fw, n in POOL.items()}
    for folder in sorted((ROOT / "exercises").glob("*/solutions/jax.py")):
        wanted[f"jax:{folder.parent.parent.name}"] = POOL["jax"] * processes
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready = _ready(run)
        if all(ready.get(key, 0) >= n for key, n in wanted.items()):
            return
        time.sleep(0.05)
    raise TimeoutError(f"the pool did not fill: {_ready(run)}")


def pooled(run: Deployment, samples: int) -> dict[str, dict[str, float]]:
    """Right answers one at a time, each once the pool is full again."""
    results = {}
    for label, exercise, framework in KINDS:
        right = answers(exercise, framework)[0]
        wait_pool(run)
        run.api.submit_and_wait(exercise, framework, right.code)  # computes expected outputs
        times = []
        for _ in range(samples):
            wait_pool(run)
            ms, verdict = run.api.submit_and_wait(exercise, framework, right.code)
            if verdict != "accepted":
                raise RuntimeError(f"{label}: expected accepted, got {verdict}")
            times.append(ms)
        results[label] = {"p50_ms": statistics.median(times), "max_ms": max(times)}
    return results


def fresh_sandbox(samples: int) -> dict[str, float]:
    """The usual design: a fresh bubblewrap sandbox (imports included) per submission."""
    from graders import Grader, PoolSettings

    grader = Grader(ROOT / "exercises", PoolSettings(sizes={}, jax_warm_up=False, fork=()))
    grader.start()
    results = {}
    try:
        for label, exercise, framework in KINDS:
            code = answers(exercise, framework)[0].code
            grader.grade(exercise=exercise, code=code, framework=framework)
            times = []
            for _ in range(samples):
                started = time.perf_counter()
                report = grader.grade(exercise=exercise, code=code, framework=framework)
                times.append((time.perf_counter() - started) * 1000)
                if report.verdict != "accepted":
                    raise RuntimeError(f"{label}: {report.message}")
            results[label] = statistics.median(times)
    finally:
        grader.stop()
    return results


__all__ = ["fresh_sandbox", "pooled", "summary"]
