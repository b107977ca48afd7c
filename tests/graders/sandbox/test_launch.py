"""fork_exec without bwrap: the program is this thread's child and starts from a few MB."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from graders.sandbox import launch
from graders.sandbox.mounts import FilesystemPlan

BALLAST_MB = 600


def _plan(argv: list[str], devnull: int) -> launch.LaunchPlan:
    return launch.LaunchPlan(
        argv=argv,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        uid=None,
        fds={0: devnull, 1: devnull, 2: devnull},
        filesystem=FilesystemPlan(),
    )


def _zombie_children() -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid() and fields[0] == b"Z":
            found.append(int(name))
    return found


def test_the_program_is_our_child_and_its_peak_excludes_the_launcher() -> None:
    ballast = b"x" * (BALLAST_MB * 2**20)
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        pid = launch.in_spawner(lambda: launch.fork_exec(_plan(["/bin/true"], devnull)))
    finally:
        os.close(devnull)
        del ballast
    reaped, status, usage = os.wait4(pid, 0)  # a child of this process, not of the script
    assert reaped == pid and os.waitstatus_to_exitcode(status) == 0
    assert usage.ru_maxrss < 64 * 1024  # KB: the fresh script's few MB, not the 600 MB ballast


def test_a_program_that_cannot_be_started_is_a_launch_error_and_leaves_no_zombie() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        with pytest.raises(launch.LaunchError, match="FileNotFoundError"):
            launch.in_spawner(lambda: launch.fork_exec(_plan(["/nonexistent/bwrap"], devnull)))
    finally:
        os.close(devnull)
    assert _zombie_children() == []


def _gone(pid: int) -> bool:
    return not os.path.exists(f"/proc/{pid}")


def _stuck_copy(plan: launch.LaunchPlan, err_w: int) -> None:  # pragma: no cover - child only
    time.sleep(3600)  # as if a lock held by another thread at fork never came free


@pytest.mark.timeout(60)
def test_a_child_stuck_before_its_exec_is_killed_and_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(launch, "_child", _stuck_copy)
    monkeypatch.setattr(launch, "START_SECONDS", 1.0)
    devnull = os.open(os.devnull, os.O_RDWR)
    started = time.monotonic()
    try:
        with pytest.raises(launch.LaunchError, match="did not start within 1 s"):
            launch.in_spawner(lambda: launch.fork_exec(_plan(["/bin/true"], devnull)))
    finally:
        os.close(devnull)
    assert time.monotonic() - started < 10
    assert _zombie_children() == []


@pytest.mark.timeout(60)
def test_a_reparenting_script_that_hangs_is_killed_and_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = tmp_path / "hang.py"
    pid_file = tmp_path / "pid"
    script.write_text(
        "import os, sys, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "time.sleep(3600)\n"
    )
    monkeypatch.setattr(launch, "REPARENT_SCRIPT", str(script))
    monkeypatch.setattr(launch, "START_SECONDS", 1.0)
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        with pytest.raises(launch.LaunchError, match="did not start within 1 s"):
            launch.in_spawner(lambda: launch.fork_exec(_plan(["/bin/true"], devnull)))
    finally:
        os.close(devnull)
    assert _gone(int(pid_file.read_text()))
    assert _zombie_children() == []
