"""`jax_own_client` (off by default): a JAX exercise's server forks before JAX starts, and each
child starts a client of its own and warms up on the exercise ahead of its job, so a program the
warm-up never compiled is compiled there natively, with no reset (docs/jax-fork-reset.md, "A
child that never resets"). The graded behaviour: test_jax_own_client_sandbox.py (a scenario).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from graders.host import interpreter
from graders.host.interpreter import PoolSettings, start_interpreter

EXERCISE = "position-embedding-gather"


def _argv(key: str, own_client: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    started: list[list[str]] = []

    class _Started:
        def __init__(self) -> None:
            self.read, self.job_fd = os.pipe()
            os.set_blocking(self.job_fd, False)

    def spawn(argv: list[str], **_: Any) -> _Started:
        started.append(argv)
        proc = _Started()
        os.close(proc.read)
        return proc

    monkeypatch.setattr(interpreter, "spawn", spawn)
    monkeypatch.setattr(interpreter, "_write_all", lambda fd, data: os.close(fd))
    start_interpreter(key, PoolSettings(sizes={}, jax_own_client=own_client))
    return started[0]


def test_the_setting_starts_an_exercise_server_that_forks_before_jax_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "fork" in _argv(f"jax:{EXERCISE}", False, monkeypatch)  # today's default
    argv = _argv(f"jax:{EXERCISE}", True, monkeypatch)
    assert "prewarm" in argv and "fork" not in argv
    assert "prewarm" in _argv("jax", False, monkeypatch)  # the plain server: unchanged
    assert "fork" in _argv("numpy", True, monkeypatch)  # other frameworks: unchanged
