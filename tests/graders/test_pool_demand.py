"""graders/host/demand.py: after a restart, the class's servers start first (issue 54)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from graders.host import demand as demand_module
from graders.host.demand import Demand
from graders.host.interpreter import PoolSettings
from graders.host.pool import WarmPool

KEYS = ["numpy", "torch", "jax", "jax:alibi-bias", "jax:learned-pos-embed-forward", "jax:rope"]


class _Ready:
    """A started interpreter that is ready at once (what the pool needs of one, no sandbox)."""

    def __init__(self) -> None:
        self.result_fd, self._write_fd = os.pipe()
        os.write(self._write_fd, b"R")

    def wait_ready(self, timeout: float) -> None:
        return None

    def is_alive(self) -> bool:
        return True

    def kill_tree(self) -> None:
        return None

    def close(self) -> None:
        if self._write_fd >= 0:
            os.close(self.result_fd)
            os.close(self._write_fd)
            self._write_fd = -1


def _started_order(settings: PoolSettings) -> list[str]:
    """The keys in the order the pool's lane let their first servers start."""
    order: list[str] = []
    first_may_go = threading.Event()

    def starter(key: str, _settings: PoolSettings, *, background: bool) -> Any:
        if not order:  # hold the lane until every fill has queued, so only the order decides
            first_may_go.wait(5)
        order.append(key)
        return _Ready()

    pool = WarmPool(settings, starter=starter)
    try:
        pool.start()
        deadline = time.monotonic() + 5
        servers = sum(settings.sizes.values())
        while len(pool._lane._queue) < servers - 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        first_may_go.set()
        while len(order) < servers and time.monotonic() < deadline:
            time.sleep(0.01)
        return order
    finally:
        pool.stop()


def test_a_restart_starts_first_the_servers_the_class_asked_for(tmp_path: Path) -> None:
    settings = PoolSettings(sizes=dict.fromkeys(KEYS, 1), fork=(), demand_file=None)
    assert _started_order(settings) == KEYS  # nothing remembered: the sizes' order

    path = tmp_path / "grader-demand.json"
    path.write_text(json.dumps({"jax:rope": 1000.0, "jax:learned-pos-embed-forward": 2000.0}))
    remembered = PoolSettings(sizes=dict.fromkeys(KEYS, 1), fork=(), demand_file=str(path))
    # the most recently asked first, then the rest as before
    assert _started_order(remembered) == [
        "jax:learned-pos-embed-forward",
        "jax:rope",
        "numpy",
        "torch",
        "jax",
        "jax:alibi-bias",
    ]


def test_every_kind_gets_its_first_server_before_any_gets_a_second(tmp_path: Path) -> None:
    path = tmp_path / "grader-demand.json"
    path.write_text(json.dumps({"numpy": 2000.0, "jax:rope": 2000.0}))
    sizes = {"numpy": 2, "torch": 1, "jax": 1, "jax:rope": 1}  # the default: two NumPy servers
    settings = PoolSettings(sizes=sizes, fork=(), demand_file=str(path))
    assert _started_order(settings) == ["numpy", "jax:rope", "torch", "jax", "numpy"]


def test_a_cheap_start_the_class_asked_for_goes_before_a_jax_one() -> None:
    demand = Demand(None)
    demand.note("jax:rope")
    demand.note("numpy")
    demand.note("jax:alibi-bias")  # the most recent, but NumPy's start costs a tenth
    assert demand.order(KEYS) == [
        "numpy",
        "jax:alibi-bias",
        "jax:rope",
        "torch",
        "jax",
        "jax:learned-pos-embed-forward",
    ]


def test_a_job_is_remembered_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "data" / "grader-demand.json"  # the directory is made when first needed
    pool = WarmPool(PoolSettings(sizes={"numpy": 1}, fork=("numpy",), demand_file=str(path)))
    pool.start()
    try:
        running = pool.acquire("numpy", timeout=60)  # a real sandboxed NumPy fork server
        pool.release(running)
    finally:
        pool.stop()
    asked = json.loads(path.read_text())
    assert list(asked) == ["numpy"] and abs(asked["numpy"] - time.time()) < 120
    assert Demand(path).order(["torch", "jax:rope", "numpy"]) == ["numpy", "torch", "jax:rope"]


def test_a_key_is_written_again_only_after_a_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "grader-demand.json"
    clock = [5000.0]
    monkeypatch.setattr(demand_module.time, "time", lambda: clock[0])
    demand = Demand(path)
    demand.note("jax:rope")
    writes = path.stat().st_mtime_ns
    clock[0] += 30  # every job notes its key: no write for each one
    demand.note("jax:rope")
    assert path.stat().st_mtime_ns == writes
    assert json.loads(path.read_text()) == {"jax:rope": 5000.0}
    clock[0] += 31
    demand.note("jax:rope")
    assert json.loads(path.read_text()) == {"jax:rope": 5061.0}


def test_two_workers_sharing_the_file_keep_each_others_keys(tmp_path: Path) -> None:
    path = tmp_path / "grader-demand.json"
    one, two = Demand(path), Demand(path)  # both read the file before either wrote
    one.note("jax:rope")
    two.note("numpy")
    assert set(json.loads(path.read_text())) == {"jax:rope", "numpy"}


@pytest.mark.parametrize(
    "text", ["", "{not json", "[1, 2]", '{"jax:rope": "soon", "numpy": NaN}', "\x00\xff"]
)
def test_a_damaged_file_remembers_nothing_and_is_replaced(tmp_path: Path, text: str) -> None:
    path = tmp_path / "grader-demand.json"
    path.write_text(text, errors="surrogateescape")
    demand = Demand(path)
    assert demand.order(KEYS) == KEYS
    demand.note("jax:rope")
    assert list(json.loads(path.read_text())) == ["jax:rope"]


def test_a_file_that_cannot_be_written_costs_only_the_order(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the data directory should be")
    demand = Demand(blocked / "grader-demand.json")
    demand.note("jax:rope")  # no exception: grading goes on
    assert demand.order(KEYS)[0] == "jax:rope"  # this process still knows
    assert "could not remember the pool's demand" in caplog.text


def test_a_filled_jax_cache_is_known_current_and_an_empty_or_stale_one_is_not(
    tmp_path: Path,
) -> None:
    from graders.host import jax_cache
    from graders.host.warmup import warmup_bundles
    from graders.sandbox import base_env

    exercises = Path(__file__).resolve().parents[2] / "exercises"
    bundles = warmup_bundles(exercises)
    for slug, bundle in bundles.items():  # stamped as `fill` stamps a part it filled
        path = jax_cache._stamp_path(tmp_path, slug)
        path.parent.mkdir(parents=True)
        path.write_text(jax_cache.stamp(bundle, base_env()), encoding="utf-8")
    assert jax_cache.current(exercises, tmp_path, base_env())
    slug = sorted(bundles)[0]
    jax_cache._stamp_path(tmp_path, slug).write_text("filled for other code")
    assert not jax_cache.current(exercises, tmp_path, base_env())
    assert not jax_cache.current(exercises, tmp_path / "empty", base_env())


def test_work_known_done_is_not_run_before_the_first_start() -> None:
    ran: list[str] = []
    pool = WarmPool(PoolSettings(sizes={"jax:rope": 0}, fork=()), starter=lambda *a, **k: _Ready())
    pool.before_first("jax", lambda: ran.append("fill"))
    pool.prepared("jax")  # the grader found the cache current
    pool._ensure_prepared("jax:rope")
    assert ran == []
    other = WarmPool(PoolSettings(sizes={"jax:rope": 0}, fork=()), starter=lambda *a, **k: _Ready())
    other.before_first("jax", lambda: ran.append("fill"))
    other._ensure_prepared("jax:rope")
    other._ensure_prepared("jax")
    assert ran == ["fill"]  # once, before the first JAX start of any key


def test_the_graders_start_checks_the_jax_cache_with_the_bundles_it_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building the warm-up bundles again at the check cost a restart 1 s of a crowded core."""
    from graders.engine import Grader
    from graders.host import warmup

    exercises = Path(__file__).resolve().parents[2] / "exercises"
    settings = PoolSettings(sizes={"numpy": 0, "jax": 0}, jax_cache_dir=str(tmp_path / "jax"))
    grader = Grader(exercises, settings, mistakes_cache_dir=tmp_path / "mistakes")
    assert {key for key in grader.pool.settings.sizes if key.startswith("jax:")}  # built once
    built_again: list[Path] = []
    monkeypatch.setattr(warmup, "warmup_bundles", lambda d, c=None: built_again.append(d) or {})
    checked: list[bool] = []
    monkeypatch.setattr(grader.pool, "prepared", lambda framework: checked.append(True))
    monkeypatch.setattr(grader.pool, "start", lambda: None)
    grader._start_pool()
    assert built_again == []
    assert checked == []  # an empty cache directory is not current: the fill runs first
