"""Runs INSIDE the sandbox: what a fork server's next child inherits that a job could change.

A job runs in a child of the fork server (graders/inside/zygote.py), as the same uid. The job
filter (graders/sandbox/seccomp.py) refuses every call that changes another process's
attributes; this is the check behind it: after each job the server compares each entry below
with its value at start, and any difference ends the server (the next child would inherit it).
docs/grading.md lists the entries; tests/graders/test_zygote.py changes each one in turn.
"""

from __future__ import annotations

import ctypes
import os
import resource
from collections.abc import Callable

SYS_SCHED_GETATTR, SYS_IOPRIO_GET = 315, 252
IOPRIO_WHO_PROCESS = 1
PR_GET_TIMERSLACK, PR_GET_DUMPABLE, PR_GET_NO_NEW_PRIVS = 30, 3, 39
PERSONALITY_QUERY = 0xFFFFFFFF
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int
_libc.personality.restype = ctypes.c_int
_libc.personality.argtypes = (ctypes.c_ulong,)


def _rlimits() -> object:
    names = sorted(name for name in dir(resource) if name.startswith("RLIMIT_"))
    return tuple((name, resource.getrlimit(getattr(resource, name))) for name in names)


def _sched_attr() -> object:
    """sched_getattr(0): policy, flags, nice, priority, runtime (the slice), deadline, period,
    utilisation clamps, as raw bytes (Python has no wrapper)."""
    buffer = ctypes.create_string_buffer(64)
    if _libc.syscall(SYS_SCHED_GETATTR, 0, buffer, len(buffer), 0) != 0:
        return f"error {ctypes.get_errno()}"
    return buffer.raw


def _ioprio() -> object:
    return _libc.syscall(SYS_IOPRIO_GET, IOPRIO_WHO_PROCESS, 0)


def _umask() -> object:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _proc_self(name: str) -> Callable[[], object]:
    def read() -> object:
        try:
            with open(f"/proc/self/{name}", encoding="ascii") as file:
                return file.read().split()[-1]
        except OSError as exc:
            return f"error {exc.errno}"

    return read


ENTRIES: dict[str, Callable[[], object]] = {
    "rlimits": _rlimits,
    "nice": lambda: os.getpriority(os.PRIO_PROCESS, 0),
    "policy": lambda: os.sched_getscheduler(0),
    "priority": lambda: os.sched_getparam(0).sched_priority,
    "sched_attr": _sched_attr,
    "affinity": lambda: sorted(os.sched_getaffinity(0)),
    "ioprio": _ioprio,
    "umask": _umask,
    "cwd": os.getcwd,
    "timerslack": lambda: _libc.prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0),
    "dumpable": lambda: _libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0),
    "no_new_privs": lambda: _libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0),
    "personality": lambda: _libc.personality(PERSONALITY_QUERY),
    "oom_score_adj": _proc_self("oom_score_adj"),
    "autogroup": _proc_self("autogroup"),
    "threads": lambda: len(os.listdir("/proc/self/task")),
}


def snapshot() -> dict[str, object]:
    """Every entry's value now."""
    return {name: read() for name, read in ENTRIES.items()}


def changed(expected: dict[str, object]) -> list[str]:
    """The entries whose value differs from `expected` (a snapshot taken at start)."""
    now = snapshot()
    return [name for name in ENTRIES if now[name] != expected.get(name)]
