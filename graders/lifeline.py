"""Trusted helper children (reference and mistake runners) end when the process that asked ends.

`subprocess.run(timeout=...)` kills a slow child only while its parent lives to do it. A grader,
server or test killed mid-computation left its runner orphaned, computing (JAX can take minutes)
with nobody to read the answer. The parent names itself in LIFELINE_ENV; the child asks the
kernel to kill it when that parent dies (PR_SET_PDEATHSIG) and exits at once if it already has.
"""

from __future__ import annotations

import ctypes
import os
import signal

LIFELINE_ENV = "GRADER_PARENT_PID"
PR_SET_PDEATHSIG = 1


def child_env() -> dict[str, str]:
    """The environment for a helper child: this process's, naming this process as the parent."""
    return {**os.environ, LIFELINE_ENV: str(os.getpid())}


def die_with_parent() -> None:
    """In the child: be killed with the parent; exit now if the parent is already gone."""
    parent = os.environ.get(LIFELINE_ENV)
    if not parent:
        return  # started by hand: nobody to follow
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != int(parent):  # it died before the request took effect
        os._exit(1)
