"""The `memory` scenario's arithmetic (app/bench/memory.py); the scenario itself runs in
tests/test_bench.py."""

from __future__ import annotations

import os

from app.bench import memory


def _sample(jobs: int, web_mb: float) -> memory.Sample:
    return memory.Sample(jobs, jobs / 30, web_mb, 500.0, 5, 150.0, 20, 40, 12)


def test_slope_is_the_least_squares_line() -> None:
    assert memory.slope([(0, 1.0), (1, 3.0), (2, 5.0)]) == 2.0
    assert memory.slope([(1, 1.0)]) == 0.0
    assert memory.slope([(1, 1.0), (1, 2.0)]) == 0.0


def test_a_run_that_levels_off_is_bounded_and_one_that_keeps_growing_is_not() -> None:
    # 100 MB at the start, +20 MB over the first 2,000 jobs, then flat
    flat = [_sample(n, 100 + min(n, 2000) / 100) for n in range(0, 10_001, 250)]
    found = memory.summarise(flat)
    assert found["bounded"]
    web = found["figures"]["web_mb"]
    assert (web["first"], web["max"], web["last"]) == (100.0, 120.0, 120.0)
    assert web["slope_per_1000"] > 0 and web["last_quarter_slope_per_1000"] == 0.0
    # 2 kB per job: 2 MB per 1,000 jobs, to the end
    growing = [_sample(n, 100 + n * 0.002) for n in range(0, 10_001, 250)]
    assert not memory.summarise(growing)["bounded"]


def test_a_sample_reads_this_process_and_its_children() -> None:
    found = memory.sample([os.getpid()], jobs=0, seconds=0.0)
    assert found.web_mb > 0 and found.fds > 0 and found.threads >= 1 and found.processes >= 1
