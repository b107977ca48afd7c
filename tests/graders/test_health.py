"""When sandboxes cannot start, grading says so at once and in plain words, and recovers.

The real probe and the real Grader; GRADER_BWRAP points them at a missing bwrap, or at a small
script that fails the way bwrap fails where user namespaces are not allowed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from graders.engine import Grader
from graders.host import health
from graders.host.interpreter import PoolSettings
from tests.graders.sandbox.helpers import requires_sandbox

pytestmark = requires_sandbox

ROOT = Path(__file__).resolve().parents[2]
GOOD = (ROOT / "exercises" / "position-embedding-gather" / "solutions" / "numpy.py").read_text()
NO_USERNS_BWRAP = """#!/bin/sh
echo "bwrap: No permissions to create a new namespace, likely because the kernel does not \
allow non-privileged user namespaces." >&2
exit 1
"""


def _grader() -> Grader:
    return Grader(ROOT / "exercises", PoolSettings(sizes={"numpy": 1}, jax_warm_up=False))


def _grade(grader: Grader) -> tuple[str, str]:
    report = grader.grade(exercise="position-embedding-gather", code=GOOD, framework="numpy")
    return report.verdict, report.message


def test_the_probe_passes_here() -> None:
    assert health.probe_sandbox() is None


def test_without_bubblewrap_a_job_gets_internal_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GRADER_BWRAP", str(tmp_path / "no-such-bwrap"))
    grader = _grader()
    grader.start()
    try:
        verdict, message = _grade(grader)
        assert verdict == "internal_error"
        assert "bubblewrap" in message and "apt-get install bubblewrap" in message
        assert "not your fault" in message
        assert grader.status().startswith("unavailable: bubblewrap")
        assert grader.pool.sizes() == {"numpy": 0}  # no sandbox was tried in a loop
    finally:
        grader.stop()


def test_without_user_namespaces_the_cause_and_fix_are_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = Path(tempfile.mkdtemp(prefix="fake-bwrap-"))  # root's sandbox uid must reach it
    folder.chmod(0o755)
    fake = folder / "bwrap"
    fake.write_text(NO_USERNS_BWRAP)
    fake.chmod(0o755)
    monkeypatch.setenv("GRADER_BWRAP", str(fake))
    try:
        reason = health.probe_sandbox()
    finally:
        shutil.rmtree(folder)
    assert reason is not None
    assert "user namespaces" in reason and "sysctl" in reason
    assert "No permissions to create a new namespace" in reason
    # Docker's default seccomp profile refuses them the same way: the container's fix too
    assert "in a container" in reason and "seccomp=deploy/seccomp-bwrap.json" in reason


def test_grading_resumes_once_the_cause_is_gone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(health, "RECHECK_S", 0.0)
    monkeypatch.setenv("GRADER_BWRAP", str(tmp_path / "no-such-bwrap"))
    grader = _grader()
    grader.start()
    try:
        assert _grade(grader)[0] == "internal_error"
        monkeypatch.delenv("GRADER_BWRAP")  # "bubblewrap is installed now"
        assert _grade(grader)[0] == "accepted"
        assert grader.status() == "ready"
    finally:
        grader.stop()


def test_a_probe_that_raises_is_a_reason_not_a_dead_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs must not wait START_WAIT_S each because the background probe died half-way."""
    monkeypatch.setattr(health, "RETRY_S", 0.05)
    calls: list[int] = []

    def probe() -> str | None:
        calls.append(1)
        if len(calls) == 1:
            raise ProcessLookupError(3, "No such process")
        return None

    ready = threading.Event()
    state = health.Health(probe=probe)
    state.start(on_ready=ready.set)
    assert ready.wait(10), state.status()
    assert state.status() == "ready" and len(calls) == 2
    state.stop()


def test_the_first_failure_of_the_probe_itself_is_named() -> None:
    def probe() -> str | None:
        raise OSError(24, "Too many open files")

    state = health.Health(probe=probe)
    reason = state.blocked()
    assert reason is not None and "Too many open files" in reason
    assert state.status().startswith("unavailable: the grader could not check its sandbox")


@pytest.mark.parametrize("probe_ends", ["before start", "after start"])
def test_a_probe_begun_ahead_starts_the_pool_once(probe_ends: str) -> None:
    # `serve` begins the probe before the grader is built (issue 54); the grader's `start`
    # comes before or after the real sandbox answered, and its pool starts once either way.
    gate = threading.Event()

    def probe() -> str | None:
        assert gate.wait(30)
        return health.probe_sandbox()

    state = health.Health(probe=probe)
    state.begin()
    calls: list[int] = []
    called = threading.Event()

    def on_ready() -> None:
        calls.append(1)
        called.set()

    if probe_ends == "before start":
        gate.set()
        assert state.blocked() is None  # waits for the probe's answer
        state.start(on_ready)
    else:
        state.start(on_ready)
        assert calls == []
        gate.set()
    assert called.wait(30), state.status()
    state.begin()  # again: nothing more
    time.sleep(0.2)  # a second call would come from the probe's thread, now or never
    assert calls == [1] and state.status() == "ready"
    state.stop()


PROBE = "from graders.host import health; print(health.probe_sandbox())"


def test_a_kernel_without_user_namespaces_gets_one_sentence_naming_the_fix() -> None:
    # The real bubblewrap in a user namespace whose user.max_user_namespaces is 0
    # (tests/graders/no_userns.py): it fails as it does where the kernel forbids them.
    done = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).with_name("no_userns.py")),
            sys.executable,
            "-c",
            PROBE,
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,  # within seconds: the probe gives up at once, it does not retry
    )
    assert done.returncode == 0, done.stderr[-2000:]
    reason = done.stdout.strip().splitlines()[-1]
    sentence, _, said = reason.partition(" (bubblewrap said: ")
    assert "max_*_namespaces exceeded" in said or "namespace" in said, reason
    assert ". " not in sentence and sentence.count(":") == 0, sentence  # one sentence
    assert "user namespaces" in sentence
    assert "sudo sysctl -w user.max_user_namespaces=15000" in sentence
    assert "sudo sysctl -w kernel.unprivileged_userns_clone=1" in sentence
