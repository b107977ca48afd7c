"""The number of files a sandbox's /tmp may hold, set once the sandbox is up (tmp_cap.py).

Each file, empty or not, costs the kernel an inode, a dentry and its name (about 1.25 kB with a
long name), which neither the tmpfs size nor any rlimit counts: 1.09 M empty files pinned
1.36 GB (issue 48). With the cap, creating one more file fails with ENOSPC, and emptying /tmp
after a job is bounded too (graders/inside/zygote.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CAP_SCRIPT = str(Path(__file__).with_name("tmp_cap.py"))
CAP_TIMEOUT_S = 30.0


class TmpCapError(RuntimeError):
    """The cap could not be set: the sandbox must not take a job."""


def cap_tmp_files(init_pid: int, files: int) -> None:
    """Remount the /tmp of the sandbox whose init is `init_pid` with at most `files` inodes."""
    proc = subprocess.run(
        [sys.executable, "-I", "-S", CAP_SCRIPT, str(init_pid), str(files)],
        capture_output=True,
        timeout=CAP_TIMEOUT_S,
        check=False,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip()[-500:]
        raise TmpCapError(f"cannot cap the files of the sandbox's /tmp: {why}")
