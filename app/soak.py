"""`python -m app soak`: a long run of mixed and hostile jobs; the grader must end as it began.

Measures what a grader host would show after a day of use: the latency of a known-good job at
the start and at the end, processes left behind, the grader's open descriptors and memory, and
files left in /tmp. Hostile jobs come from the golden suite (tests/graders/golden).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from app.config import ROOT
from graders import Grader, PoolSettings

GOLDEN = ROOT / "tests" / "graders" / "golden"
HOSTILE = ("res-", "leak-", "tamper-", "crash-", "input-")
SLOW = ("flood-infinite", "hang", "sleep", "fork", "spin", "busy")  # wall-clock attacks: few
GOOD = (ROOT / "exercises/position-embedding-gather/solutions/numpy.py").read_text()


def _sandbox_pids() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"/grader/harness.py" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _snapshot() -> dict[str, Any]:
    tmp = Path(tempfile.gettempdir())
    status = Path("/proc/self/status").read_text()
    rss_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    return {
        "open_fds": len(os.listdir("/proc/self/fd")),
        "threads": len(os.listdir("/proc/self/task")),
        "rss_mb": round(rss_kb / 1024, 1),
        "tmp_entries": len(list(tmp.iterdir())),
    }


def _jobs(total: int, hostile_share: float) -> list[tuple[str, str, str, str]]:
    """(label, exercise, framework, code); NumPy and torch only, so the run is about the grader."""
    hostile = [
        p
        for p in sorted(GOLDEN.glob("*/*.py"))
        if p.name.startswith(HOSTILE) and p.name.endswith((".numpy.py", ".torch.py"))
    ]
    quick = [p for p in hostile if not any(word in p.name for word in SLOW)]
    slow = [p for p in hostile if p not in quick]
    rng = random.Random(7)  # noqa: S311 - a fixed, repeatable job mix
    jobs = []
    for index in range(total):
        if rng.random() < hostile_share:
            pool = slow if slow and index % 50 == 0 else quick
            path = rng.choice(pool)
            framework = path.name.split(".")[-2]
            jobs.append((path.name, path.parent.name, framework, path.read_text()))
        else:
            jobs.append(("good", "position-embedding-gather", "numpy", GOOD))
    return jobs


def _good_latency(grader: Grader, samples: int) -> float:
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        report = grader.grade(exercise="position-embedding-gather", code=GOOD, framework="numpy")
        times.append((time.perf_counter() - started) * 1000)
        if report.verdict != "accepted":
            raise RuntimeError(f"a known-good job was not accepted: {report.message}")
    return statistics.median(times)


def run(*, total: int, hostile_share: float = 0.3) -> dict[str, Any]:
    """Run `total` jobs on one warm grader and print before/after numbers."""
    grader = Grader(ROOT / "exercises", PoolSettings(sizes={"numpy": 2, "torch": 1}))
    grader.start()
    try:
        grader.grade(exercise="position-embedding-gather", code=GOOD, framework="numpy")
        time.sleep(2)
        before = {**_snapshot(), "p50_ms": _good_latency(grader, 20)}
        print(f"soak: before {before}", flush=True)
        verdicts: dict[str, int] = {}
        started = time.perf_counter()
        for done, (_label, exercise, framework, code) in enumerate(_jobs(total, hostile_share), 1):
            report = grader.grade(exercise=exercise, code=code, framework=framework)
            verdicts[report.verdict] = verdicts.get(report.verdict, 0) + 1
            if done % 100 == 0:
                print(f"  {done}/{total} jobs, {time.perf_counter() - started:.0f} s", flush=True)
        elapsed = time.perf_counter() - started
        time.sleep(2)  # let the last refills finish
        after = {**_snapshot(), "p50_ms": _good_latency(grader, 20)}
        print(f"soak: after  {after}", flush=True)
    finally:
        grader.stop()
    time.sleep(1)
    leftover = _sandbox_pids()
    summary = {
        "jobs": total,
        "seconds": round(elapsed, 1),
        "verdicts": verdicts,
        "before": before,
        "after": after,
        "sandbox_processes_after_stop": len(leftover),
    }
    print(f"soak: {total} jobs in {elapsed:.0f} s; verdicts {verdicts}")
    print(f"soak: processes left after stop: {len(leftover)}")
    return summary
