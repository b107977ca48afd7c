"""Run a command where no user namespace may be created, as on a kernel that forbids them.

A user namespace of its own with `user.max_user_namespaces` set to 0 inside it: bubblewrap then
fails exactly as it does where the sysctl is 0 (or unprivileged_userns_clone is off), while
the machine's own setting, shared with everyone on it, stays as it is. Works as root (every uid
mapped, so the sandbox's per-job uids exist) and as an ordinary user (only their own uid).

    python tests/graders/no_userns.py COMMAND ARGS...
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

CLONE_NEWUSER = 0x10000000


def _maps(pid: int, uid: int, gid: int) -> None:
    """Written from outside, as only the parent namespace may map other uids than its own."""
    if uid == 0:
        Path(f"/proc/{pid}/uid_map").write_text("0 0 4294967295\n")
        Path(f"/proc/{pid}/gid_map").write_text("0 0 4294967295\n")
    else:
        Path(f"/proc/{pid}/setgroups").write_text("deny\n")
        Path(f"/proc/{pid}/uid_map").write_text(f"{uid} {uid} 1\n")
        Path(f"/proc/{pid}/gid_map").write_text(f"{gid} {gid} 1\n")


def main() -> None:
    uid, gid = os.geteuid(), os.getegid()
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWUSER) != 0:
            os._exit(97)
        os.write(ready_w, b"u")
        os.read(go_r, 1)
        Path("/proc/sys/user/max_user_namespaces").write_text("0\n")
        os.execvp(sys.argv[1], sys.argv[1:])
    os.read(ready_r, 1)
    _maps(pid, uid, gid)
    os.write(go_w, b"g")
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
