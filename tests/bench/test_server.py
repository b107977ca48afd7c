"""The bench's deployment helpers that need no server: CPU accounting over a process tree."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.bench.server import _tree_cpu_seconds

BURN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


@contextmanager
def parent_running(script: str, line: str) -> Iterator[int]:
    """A Python parent running `script`, once it printed `line`; killed with its children after."""
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None and parent.stdout.readline() == line
        yield parent.pid
    finally:
        subprocess.run(["pkill", "-KILL", "-P", str(parent.pid)], check=False)
        parent.kill()
        parent.wait(30)


def test_the_tree_counts_a_childs_cpu_under_its_parent() -> None:
    # The child burns, says so, and lives on; the parent only relays that line and waits.
    child = BURN + "print('burnt', flush=True)\ntime.sleep(30)\n"
    script = (
        "import subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', {child!r}], stdout=subprocess.PIPE)\n"
        "print(child.stdout.readline().decode().strip(), flush=True)\n"
        "child.wait()\n"
    )
    with parent_running(script, "burnt\n") as pid:
        used = _tree_cpu_seconds(pid)
        assert used is not None
        # The parent itself only waits: most of this is the child's 0.4 s, counted under it.
        assert used >= 0.35, used


def test_a_child_that_ended_still_counts_under_its_parent() -> None:
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.run([sys.executable, '-c', {BURN!r}])\n"
        "print('done', flush=True)\n"
        "time.sleep(30)\n"
    )
    with parent_running(script, "done\n") as pid:
        used = _tree_cpu_seconds(pid)
        assert used is not None and used >= 0.25, used


def test_a_process_that_is_gone_has_no_figure() -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    assert _tree_cpu_seconds(ended.pid) is None
