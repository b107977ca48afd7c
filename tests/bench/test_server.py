"""The bench's deployment helpers that need no server: CPU accounting over a process tree."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.bench.server import _tree_cpu_seconds

# A parent that starts a child and waits; the child burns about `seconds` of CPU, then both exit
# once the file named by the second argument exists (so the test reads them while they live).
SCRIPT = """
import subprocess, sys, time, os
if sys.argv[1] == "child":
    end = time.process_time() + float(sys.argv[3])
    while time.process_time() < end:
        pass
    open(sys.argv[2] + ".burnt", "w").close()
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.01)
else:
    child = subprocess.Popen([sys.executable, "-c", sys.argv[4], "child", sys.argv[2], sys.argv[3]])
    child.wait()
"""

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def test_the_tree_counts_a_childs_cpu_under_its_parent(tmp_path: Path) -> None:
    flag = tmp_path / "stop"
    parent = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, "parent", str(flag), "0.4", SCRIPT],
    )
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "stop.burnt").exists():
            assert time.monotonic() < deadline, "the child never finished burning"
            time.sleep(0.01)
        used = _tree_cpu_seconds(parent.pid)
        assert used is not None
        # The parent itself only waits: most of this is the child's 0.4 s, counted under it.
        assert used >= 0.35, used
    finally:
        flag.touch()
        parent.wait(30)


def test_a_child_that_ended_still_counts_under_its_parent() -> None:
    burn = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.run([sys.executable, '-c', {burn!r}])\n"
        "print('done', flush=True)\n"
        "time.sleep(30)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None and parent.stdout.readline() == "done\n"
        used = _tree_cpu_seconds(parent.pid)
        assert used is not None and used >= 0.25, used
    finally:
        parent.kill()
        parent.wait(30)


def test_a_process_that_is_gone_has_no_figure() -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    assert _tree_cpu_seconds(ended.pid) is None
