"""Seccomp filter for sandboxed interpreters, built with libseccomp through ctypes.

Default action: allow. Dangerous syscalls (kernel attack surface, namespace and debugging
tricks) fail with EPERM; `socket()` fails for every family but AF_UNIX; `ioctl(TIOCSTI)` and
`ioctl(TIOCLINUX)` fail. Syscalls of a foreign ABI (i386 via `int 0x80`, x32 numbers on the
x86_64 entry point) kill the process: libseccomp sends them to the bad-architecture action.
The program is exported as raw BPF for `bwrap --seccomp FD`.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager

LIBSECCOMP = "libseccomp.so.2"

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_FLTATR_ACT_BADARCH = 2
SCMP_CMP_NE = 1
SCMP_CMP_MASKED_EQ = 7

AF_UNIX = 1
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
INT32_MASK = 0xFFFFFFFF

DENIED_SYSCALLS: tuple[str, ...] = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "bpf",
    "keyctl",
    "add_key",
    "request_key",
    "perf_event_open",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "userfaultfd",
    "open_by_handle_at",
    "name_to_handle_at",
    "fsopen",
    "fsmount",
    "move_mount",
    "open_tree",
    # System V and POSIX message-queue IPC objects outlive the process that made them; a fork
    # server's next job would share them (graders/zygote.py).
    "shmget",
    "semget",
    "msgget",
    "mq_open",
)
DENIED_IOCTLS: tuple[int, ...] = (TIOCSTI, TIOCLINUX)


class SeccompError(RuntimeError):
    """libseccomp is missing or refused the filter; the sandbox must not start without it."""


class _ArgCmp(ctypes.Structure):
    """`struct scmp_arg_cmp` from seccomp.h."""

    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


def act_errno(code: int) -> int:
    """SCMP_ACT_ERRNO(code): the syscall returns -1 with this errno."""
    return 0x00050000 | (code & 0xFFFF)


def _load() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(LIBSECCOMP, use_errno=True)
    except OSError as exc:
        raise SeccompError(f"cannot load {LIBSECCOMP}: {exc}") from exc
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_release.restype = None
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_attr_set.restype = ctypes.c_int
    lib.seccomp_attr_set.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32)
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_export_bpf.restype = ctypes.c_int
    lib.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return lib


def _check(rc: int, what: str) -> None:
    if rc < 0:
        raise SeccompError(f"{what} failed: {os.strerror(-rc)}")


@contextmanager
def _context(lib: ctypes.CDLL) -> Iterator[int]:
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise SeccompError("seccomp_init failed")
    try:
        yield ctx
    finally:
        lib.seccomp_release(ctx)


def _rule(lib: ctypes.CDLL, ctx: int, name: str, *cmps: _ArgCmp) -> None:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0:
        return  # not a syscall on this architecture: nothing to deny
    array = (_ArgCmp * len(cmps))(*cmps) if cmps else None
    _check(
        lib.seccomp_rule_add_array(ctx, act_errno(errno.EPERM), nr, len(cmps), array),
        f"rule for {name}",
    )


@functools.cache
def build_filter() -> bytes:
    """The BPF program as bytes (built once per process; libseccomp is only needed here)."""
    lib = _load()
    with _context(lib) as ctx:
        _check(
            lib.seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
            "bad-arch action",
        )
        for name in DENIED_SYSCALLS:
            _rule(lib, ctx, name)
        # Compared on all 64 bits: any family other than exactly AF_UNIX is refused.
        _rule(lib, ctx, "socket", _ArgCmp(0, SCMP_CMP_NE, AF_UNIX, 0))
        for request in DENIED_IOCTLS:
            # The kernel reads the request as a 32-bit int, so ignore the upper half.
            _rule(lib, ctx, "ioctl", _ArgCmp(1, SCMP_CMP_MASKED_EQ, INT32_MASK, request))
        fd = os.memfd_create("graders-seccomp-build", os.MFD_CLOEXEC)
        try:
            _check(lib.seccomp_export_bpf(ctx, fd), "seccomp_export_bpf")
            os.lseek(fd, 0, os.SEEK_SET)
            program = _read_all(fd)
        finally:
            os.close(fd)
    if not program or len(program) % 8:
        raise SeccompError(f"unexpected BPF program size {len(program)}")
    return program


def filter_fd() -> int:
    """A fresh close-on-exec memfd holding the program, positioned at 0 (bwrap reads it once)."""
    program = build_filter()
    fd = os.memfd_create("graders-seccomp", os.MFD_CLOEXEC)
    try:
        view = memoryview(program)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)
