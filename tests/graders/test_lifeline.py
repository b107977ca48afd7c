"""A trusted helper child (reference or mistake runner) ends when the process that asked ends."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from app.config import ROOT
from graders.lifeline import LIFELINE_ENV

CHILD = "from graders import lifeline; lifeline.die_with_parent(); import time; time.sleep(120)"
PARENT = f"""
import subprocess, sys
from graders import lifeline
child = subprocess.Popen([sys.executable, "-c", {CHILD!r}], env=lifeline.child_env())
print(child.pid, flush=True)
child.wait()
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_a_runner_dies_when_its_parent_is_killed() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 30  # a bound for "never", not a speed check
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the runner outlived the process that started it"


def test_a_runner_whose_parent_is_already_gone_exits_at_once() -> None:
    env = {**os.environ, LIFELINE_ENV: "1"}  # pid 1 is not its parent: the asker is gone
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, timeout=60, check=False)
    assert done.returncode == 1


def test_a_runner_started_by_hand_follows_nobody() -> None:
    env = {k: v for k, v in os.environ.items() if k != LIFELINE_ENV}
    code = "from graders import lifeline; lifeline.die_with_parent(); print('ran')"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "ran"
