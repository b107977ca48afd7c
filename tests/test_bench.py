"""The benchmark's scenarios, small: a real server (and workers), nothing lost, verdicts right.

No timing is asserted here: the figures are the benchmark's business (docs/benchmarks.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.bench import scenarios
from app.bench.server import deployment
from tests.bench.open_exam import open_exam_content
from tests.graders.sandbox.helpers import requires_sandbox

pytestmark = requires_sandbox
NUMPY_ONLY = {"numpy": 1, "torch": 0, "jax": 0}


def _all_right(outcomes: list[scenarios.Outcome]) -> None:
    assert outcomes
    assert all(o.correct for o in outcomes), [(o.label, o.verdict, o.right) for o in outcomes]


def test_sequential_burst_and_lab_in_the_embedded_mode() -> None:
    with deployment(pool=NUMPY_ONLY) as run:
        sequential = scenarios.sequential(run, 4, kinds=["numpy gather"])
        assert [o.right for o in sequential] == [True, False, True, False]
        _all_right(sequential)
        burst, rate = scenarios.burst(run, flax=0, numpy=6)
        _all_right(burst)
        assert len(burst) == 6 and rate > 0
        lab = scenarios.lab(run, rate=2.0, seconds=4.0, frameworks=("numpy",))
        _all_right(lab)
        summary = scenarios.summary(lab)
        assert summary["count"] == len(lab) and summary["lost"] == 0
        assert {"p50_ms", "p95_ms", "max_ms", "wrong_verdicts"} <= summary.keys()


def test_the_bench_practises_the_exams_items_on_exam_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped midterm asks the gather exercise; open now, its practice is refused (409) to
    a real class, and the bench's students would measure that refusal instead of grading."""
    monkeypatch.setenv("CONTENT_DIR", str(open_exam_content(tmp_path / "exam-day")))
    with deployment(pool=NUMPY_ONLY) as run:
        _all_right(scenarios.sequential(run, 2, kinds=["numpy gather"]))


def test_scale_out_lab_loses_nothing_when_a_worker_is_killed() -> None:
    with deployment(scale_out=True, workers=2, pool=NUMPY_ONLY) as run:
        lab = scenarios.lab(run, rate=3.0, seconds=6.0, frameworks=("numpy",), kill_worker_at=2.0)
        _all_right(lab)
        assert len(run.workers) == 2  # the killed one was replaced


def test_pages_a_class_at_once_then_live_streams() -> None:
    """The `pages` scenario end to end, small: every page served, every verdict delivered."""
    from app.bench import pages

    with deployment(pool=NUMPY_ONLY) as run:
        found = pages.pages(run, 12)
        assert found["errors"] == 0, found["first_errors"]
        assert found["ok"] + found["shed_503"] == 60 and found["ok"] > 0
        assert found["health_failures"] == 0
        # CPU per page, the server's and the load generator's (the machine's yardstick)
        assert found["server_cpu_ms_per_page"] > 0 and found["loadgen_cpu_ms_per_page"] > 0
        live = pages.streams(run, 6)
        assert live == {**live, "delivered": 6, "lost": 0, "refused": 0, "wrong_verdicts": 0}
        # the same deployment: an instructor compares the class's final submissions
        from app.bench import similarity

        compared = similarity.similarity(run, 30)
        assert "error" not in compared, compared
        assert compared["submissions"] == 30 and compared["planted"] == 5
        assert None not in compared["planted_ranks"]  # every planted copy is among the pairs


def test_pages_on_two_web_processes_in_the_scale_out_mode() -> None:
    from app.bench import pages

    with deployment(scale_out=True, workers=1, pool=NUMPY_ONLY, web_processes=2) as run:
        found = pages.pages(run, 12)
        assert found["errors"] == 0, found["first_errors"]
        assert found["ok"] + found["shed_503"] == 60
        assert found["server_cpu_ms_per_page"] > 0  # both web processes, under the serve process
        live = pages.streams(run, 4)
        assert live["delivered"] == 4 and live["wrong_verdicts"] == 0


def test_memory_samples_the_servers_processes_while_jobs_run() -> None:
    """The `memory` scenario, small: every verdict right, the processes sampled as it goes."""
    from app.bench import memory

    with deployment(pool={"numpy": 1, "torch": 1, "jax": 0}) as run:
        found = memory.run_memory(run, jobs=30, every=10, clients=2)
    assert (found["jobs"], found["lost"], found["wrong_verdicts"]) == (30, 0, 0)
    assert [s["jobs"] for s in found["samples"]] == [0, 10, 20, 30]
    last = found["samples"][-1]
    assert last["web_mb"] > 0 and last["fds"] > 0 and last["threads"] > 0
    assert last["servers"] >= 2 and last["servers_mb"] >= last["largest_server_mb"] > 0
    lines = memory.table(found)
    assert "bounded" in lines[-1] and len(lines) == 2 + len(memory.LABELS)


def test_page_cpu_measures_the_everyday_pages_on_exam_day(tmp_path: Path) -> None:
    """`python -m app.cli.page_cpu` on exam day: the pages it times are the ones a class opens on
    any other day, not the exam's notice (9 of the 20 pages it wrote were, before)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "CONTENT_DIR": str(open_exam_content(tmp_path / "exam-day"))}
    pages = tmp_path / "pages"
    run = subprocess.run(
        [sys.executable, "-m", "app.cli.page_cpu", "--students", "3", "--pages-out", str(pages)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["errors"] == 0 and found["pages"] == 15, found
    written = {line.split(" ", 1)[1] for line in run.stdout.splitlines()[:-1]}
    assert any("/exercises/" in key for key in written)
    noticed = [p.name for p in pages.iterdir() if b"is part of the exam" in p.read_bytes()]
    assert noticed == []
