"""The seccomp filter: dangerous syscalls fail with EPERM inside the sandbox, others work."""

from __future__ import annotations

import errno
import os
import signal

import pytest

from graders.sandbox.seccomp import build_filter, filter_fd
from tests.graders.sandbox.helpers import requires_sandbox, run

# x86_64 syscall numbers, called through ctypes so Python's own wrappers cannot interfere.
DENIED = {
    "ptrace": (101, 0, 1, 0, 0),  # PTRACE_TRACEME would succeed without the filter
    "unshare": (272, 0x10000000),  # CLONE_NEWUSER
    "mount": (165, 0, 0, 0, 0, 0),
    "umount2": (166, 0, 0),
    "bpf": (321, 0, 0, 0),
    "io_uring_setup": (425, 8, 0),
    "keyctl": (250, 0, 0, 0, 0, 0),
    "add_key": (248, 0, 0, 0, 0, 0),
    "perf_event_open": (298, 0, 0, 0, 0, 0),
    "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
    "setns": (308, 0, 0),
    "userfaultfd": (323, 0),
    "chroot": (161, 0),
    "ioctl TIOCSTI": (16, 0, 0x5412, 0),
    "ioctl TIOCSTI, upper bits set": (16, 0, 0x1_0000_5412, 0),
    "ioctl TIOCLINUX": (16, 0, 0x541C, 0),
}
CALL = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
args = [ctypes.c_long(a) for a in {args!r}]
rc = libc.syscall(*args)
report((rc, ctypes.get_errno()))
"""


@requires_sandbox
@pytest.mark.parametrize("name", sorted(DENIED))
def test_denied_syscall_fails_with_eperm(name: str) -> None:
    result = run(CALL.format(args=DENIED[name]))
    assert result.value == (-1, errno.EPERM), result.text


@requires_sandbox
def test_ordinary_syscalls_still_work() -> None:
    # getpid works (we are pid 1); an unrelated ioctl reaches the kernel (ENOTTY on a pipe).
    assert run(CALL.format(args=(39,))).value == (1, 0)
    assert run(CALL.format(args=(16, 4, 0x5401, 0))).value == (-1, errno.ENOTTY)


@requires_sandbox
def test_x32_abi_syscall_kills_the_process() -> None:
    result = run(CALL.format(args=(0x4000_0000 | 39,)))
    assert result.status.signal == signal.SIGSYS
    assert result.result == b""


def test_filter_is_a_bpf_program() -> None:
    program = build_filter()
    assert len(program) % 8 == 0 and 10 < len(program) // 8 < 4096
    fd = filter_fd()
    try:
        assert os.read(fd, len(program) + 1) == program
    finally:
        os.close(fd)
