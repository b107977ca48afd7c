"""graders/host/pool.py: an extra server's start is given up once no job waits for it (issue 54)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from graders.host import pool as pool_module
from graders.host.interpreter import PoolSettings
from graders.host.pool import WarmPool


class _Starting:
    """A sandbox that never gets ready by itself (a JAX server warming for seconds)."""

    def __init__(self) -> None:
        self.result_fd, self._write_fd = os.pipe()
        self.killed = False

    def kill_tree(self) -> None:
        self.killed = True

    def close(self) -> None:
        if self._write_fd >= 0:  # twice when the pool stops meanwhile, as a real one allows
            os.close(self.result_fd)
            os.close(self._write_fd)
            self._write_fd = -1


def test_an_extra_start_nobody_waits_for_any_more_is_given_up(monkeypatch: Any) -> None:
    monkeypatch.setattr(pool_module, "WANTED_POLL_S", 0.02)
    started: list[_Starting] = []

    def starter(key: str, settings: PoolSettings, *, background: bool) -> Any:
        started.append(_Starting())
        return started[-1]

    pool = WarmPool(PoolSettings(sizes={"jax:x": 1}, ready_timeout_s=30), starter=starter)
    try:
        with pool._cond:
            pool._busy["jax:x"] = 1  # the key's one server is busy with a job
            pool._waiting["jax:x"] = 1  # and a job waits: a burst server starts
        pool._refill("jax:x")
        while not started:
            time.sleep(0.01)
        time.sleep(0.2)
        assert not started[0].killed  # wanted while the job waits
        with pool._cond:
            pool._waiting["jax:x"] = 0  # the busy server took the job: nobody waits
        deadline = time.monotonic() + 5
        while pool._pending["jax:x"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert started[0].killed and pool._pending["jax:x"] == 0
        assert pool.unwanted_starts["jax:x"] == 1 and pool._failures["jax:x"] == 0
    finally:
        pool.stop()


def test_a_start_within_the_pools_size_finishes_though_nobody_waits(monkeypatch: Any) -> None:
    monkeypatch.setattr(pool_module, "WANTED_POLL_S", 0.02)
    started: list[_Starting] = []

    def starter(key: str, settings: PoolSettings, *, background: bool) -> Any:
        started.append(_Starting())
        return started[-1]

    pool = WarmPool(PoolSettings(sizes={"jax:x": 1}, ready_timeout_s=30), starter=starter)
    thread = threading.Thread(target=pool._spawn_one, args=("jax:x",))
    try:
        with pool._cond:
            pool._pending["jax:x"] += 1  # as _refill counts it
        thread.start()
        time.sleep(0.3)
        assert started and not started[0].killed and pool._pending["jax:x"] == 1
    finally:
        pool.stop()
        thread.join(5)
