"""Start a program as a fresh sibling: clone(CLONE_PARENT) from this small, just-exec'd Python.

Run as `python -I -S reparent.py REPORT_FD UID PROGRAM ARGS...` by the child that
`graders/sandbox/launch.py` forks. That child was a copy of the large launching process; the
kernel keeps the highest resident size a process ever had across exec, so whatever it execs
would report the launcher's size as its own peak. This script, freshly exec'd and a few MB in
size, clones a new process whose parent is the launcher's spawner thread (CLONE_PARENT), writes
`\\0PID\\n` on REPORT_FD and exits; the clone switches to UID (root only; `-` keeps the caller's)
and execs PROGRAM. Any failure of the clone is written on REPORT_FD, which closes at that exec.
Standard library only, and nothing imported beyond it: the launcher's code may not be readable.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

SYS_CLONE = 56  # x86_64, the only architecture the seccomp filters are written for
CLONE_PARENT = 0x00008000


def _become(uid: str, argv: list[str]) -> None:
    """In the clone: drop to the sandbox uid (root only), then exec the program."""
    if uid != "-":
        number = int(uid)
        os.setgroups([])
        os.setresgid(number, number, number)
        os.setresuid(number, number, number)
    os.execv(argv[0], argv)  # noqa: S606 - argv comes from launch.py, no shell


def main(args: list[str]) -> int:
    """Clone, report the clone's pid (or why it failed), and leave the clone to the launcher."""
    report, uid, argv = int(args[0]), args[1], args[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    pid = libc.syscall(
        ctypes.c_long(SYS_CLONE),
        ctypes.c_long(CLONE_PARENT | signal.SIGCHLD),
        *(ctypes.c_long(0) for _ in range(4)),
    )
    if pid == 0:
        try:
            os.set_inheritable(report, False)  # closed by the exec: the launcher then sees EOF
            _become(uid, argv)
        except BaseException as exc:  # report anything to the launcher
            os.write(report, f"{type(exc).__name__}: {exc}".encode()[:4000])
        os._exit(127)
    if pid < 0:
        os.write(report, f"clone(CLONE_PARENT): {os.strerror(ctypes.get_errno())}".encode())
        return 127
    os.write(report, b"\0%d\n" % pid)
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))  # nothing to flush or finalize
