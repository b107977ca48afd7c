"""Cap the number of files of a running sandbox's /tmp: remount its tmpfs with `nr_inodes`.

Run as `python -I -S tmp_cap.py PID FILES` by graders/sandbox/tmp_files.py once the sandbox
said it is ready (before any job). bwrap 0.8 can only set a tmpfs's size, not its number of
files, and an empty file costs no bytes (issue 48). The tmpfs belongs to the sandbox's first
user namespace, which the grader's user created (as root: any namespace), so this process may
join it and the sandbox's mount namespace and remount /tmp there; the host's mounts are not
touched. Standard library only, like reparent.py; nothing is imported after joining.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import sys

NS_GET_USERNS = 0xB701  # ioctl on a namespace fd: the user namespace that owns it
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
MS_NOSUID, MS_NODEV, MS_REMOUNT = 0x2, 0x4, 0x20


def cap(pid: int, files: int) -> None:
    """Join the sandbox's mount namespace (and its owner) and remount /tmp with the cap."""
    libc = ctypes.CDLL(None, use_errno=True)
    mnt = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    root = os.open(f"/proc/{pid}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    owner = fcntl.ioctl(mnt, NS_GET_USERNS)  # bwrap's outer namespace, not the nested one
    data = f"nr_inodes={files}".encode()
    for fd, kind, what in ((owner, CLONE_NEWUSER, "user"), (mnt, CLONE_NEWNS, "mount")):
        if libc.setns(fd, kind) != 0:
            raise OSError(ctypes.get_errno(), f"cannot join the sandbox's {what} namespace")
    os.fchdir(root)
    os.chroot(".")  # /tmp as the sandbox sees it
    flags = ctypes.c_ulong(MS_REMOUNT | MS_NOSUID | MS_NODEV)
    if libc.mount(None, b"/tmp", None, flags, data) != 0:
        raise OSError(ctypes.get_errno(), "cannot remount the sandbox's /tmp")


if __name__ == "__main__":
    try:
        cap(int(sys.argv[1]), int(sys.argv[2]))
    except OSError as exc:
        sys.stderr.write(f"{exc.strerror}: {exc}\n")
        sys.exit(1)
