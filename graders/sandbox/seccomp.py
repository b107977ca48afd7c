"""Seccomp filters for sandboxed interpreters, built with libseccomp through ctypes.

Two filters stack (a process keeps every filter it was given; the strictest answer wins):

- The sandbox filter (`build_filter`, exported as raw BPF for `bwrap --seccomp FD`) holds for
  every process of the sandbox. Default action: allow. Dangerous syscalls (kernel attack
  surface, namespace and debugging tricks) fail with EPERM; `socket()` fails for every family
  but AF_UNIX; `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)` fail. Syscalls of a foreign ABI (i386 via
  `int 0x80`, x32 numbers on the x86_64 entry point) kill the process.
- The job filter (`install_job_filter`) is added by the process that is about to run student
  code, after its framework is imported and just before the code is loaded
  (graders/inside/job_limits.py).
  It makes the job ONE process, so per-process rlimits bound the whole submission:
  * no new process: `fork`, `vfork` and `clone` without CLONE_THREAD fail with EPERM, `clone3`
    with ENOSYS (its flags sit in memory a filter cannot read; glibc then falls back to `clone`,
    so threads keep working). Threads share the one address space that RLIMIT_DATA bounds and
    count against RLIMIT_NPROC. Why not a cgroup: the hosts we target (a laptop, CI, a VM with
    cgroup v1 or an undelegated v2 tree) rarely let an ordinary user create one; seccomp and
    rlimits work everywhere bubblewrap does, for root and for everyone else.
  * no memory outside RLIMIT_DATA, which counts private writable mappings only (issue 22):
    - no shared memory: `mmap` with MAP_SHARED fails whatever it maps (anonymous memory,
      /dev/zero, a file in the private /tmp: the filter cannot see the file), and so do
      `memfd_create` and `memfd_secret`;
    - no stack outside the stack: `mmap` with MAP_GROWSDOWN fails (the kernel counts such a
      mapping as stack, never as data; the main stack is bounded by RLIMIT_STACK, limits.py);
    - no writes past a protection: the job is made not dumpable, so its /proc/self/mem belongs
      to root and cannot be opened for writing (writes there fill read-only private mappings,
      which are not data); `prctl(PR_SET_DUMPABLE)` and `execve`/`execveat` (an exec makes a
      process dumpable again) fail;
    - no pages held by the kernel for it: `vmsplice`, `splice` and `tee` fail (a pipe keeps
      every page spliced into it, a whole 2 MB huge page for one byte, after the job unmaps
      it), `socket` and `socketpair` fail (socket buffers grow to megabytes each and sockets
      can be kept in flight), `fcntl(F_SETPIPE_SZ)` fails (pipes keep their 64 kB), and
      `inotify_init`/`fanotify_init` fail (each watch pins kernel memory);
  * no reaching other processes of the sandbox (the fork server, a warm interpreter waiting
    for the next job): signals only to itself, `prlimit64`, `setpriority` and `ioprio_set`
    only on itself (0), `sched_setattr`, `sched_setscheduler`, `sched_setparam` and
    `sched_setaffinity` only on 0 or a task numbered from its own pid on (itself and its
    threads: the fork server and its threads came first), no pidfds.
  It is built inside the sandbox (it needs the job's own pid) and applied to every thread at
  once (SECCOMP_FILTER_FLAG_TSYNC), so threads a framework started earlier are bound too.

This file imports nothing from the project: the sandbox binds it beside the harness.
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
SCMP_CMP_GT = 6
SCMP_CMP_MASKED_EQ = 7

AF_UNIX = 1
CLONE_THREAD = 0x00010000
MAP_SHARED = 0x01  # MAP_SHARED_VALIDATE (0x03) has this bit too
MAP_GROWSDOWN = 0x0100
F_SETPIPE_SZ = 1031
PR_SET_DUMPABLE = 4
PRIO_PROCESS, IOPRIO_WHO_PROCESS = 0, 1
SYS_SECCOMP = 317  # x86_64
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1
PR_SET_NO_NEW_PRIVS = 38
TIOCSTI = 0x5412
TIOCLINUX = 0x541C
INT32_MASK = 0xFFFFFFFF
UINT64_MASK = 0xFFFFFFFFFFFFFFFF
PID_MAX_LIMIT = 1 << 22  # the kernel's largest pid_max: no task has a higher pid
# Calls that change a task's scheduling; the job may make them on itself only (its own pid, 0,
# or one of its threads, whose tids come after its pid: graders/inside/zygote.py).
SCHEDULING_SYSCALLS: tuple[str, ...] = (
    "sched_setattr",
    "sched_setscheduler",
    "sched_setparam",
    "sched_setaffinity",
)

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
    # server's next job would share them (graders/inside/zygote.py).
    "shmget",
    "semget",
    "msgget",
    "mq_open",
)
DENIED_IOCTLS: tuple[int, ...] = (TIOCSTI, TIOCLINUX)
# Refused outright by the job filter (more, with argument checks, in build_job_filter).
JOB_DENIED_SYSCALLS: tuple[str, ...] = (
    "fork",
    "vfork",
    "execve",
    "execveat",
    "memfd_create",
    "memfd_secret",
    "vmsplice",
    "splice",
    "tee",
    "socket",
    "socketpair",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
    "tkill",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
)


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


@functools.cache
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


def load_library() -> None:
    """Load libseccomp now (a fork server does it once for all the jobs it forks)."""
    _load()


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


def _rule(lib: ctypes.CDLL, ctx: int, name: str, *cmps: _ArgCmp, code: int = errno.EPERM) -> None:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0:
        return  # not a syscall on this architecture: nothing to deny
    array = (_ArgCmp * len(cmps))(*cmps) if cmps else None
    _check(
        lib.seccomp_rule_add_array(ctx, act_errno(code), nr, len(cmps), array),
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
        return _export(lib, ctx)


def build_job_filter(own_pid: int) -> bytes:
    """The job filter's BPF program for the process `own_pid` (see the module docstring)."""
    lib = _load()
    with _context(lib) as ctx:
        _check(
            lib.seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
            "bad-arch action",
        )
        for name in JOB_DENIED_SYSCALLS:
            _rule(lib, ctx, name)
        _rule(lib, ctx, "clone3", code=errno.ENOSYS)
        _rule(lib, ctx, "clone", _ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0))
        for flag in (MAP_SHARED, MAP_GROWSDOWN):
            _rule(lib, ctx, "mmap", _ArgCmp(3, SCMP_CMP_MASKED_EQ, flag, flag))
        # The kernel reads both as 32-bit ints, so ignore the upper half.
        _rule(lib, ctx, "fcntl", _ArgCmp(1, SCMP_CMP_MASKED_EQ, INT32_MASK, F_SETPIPE_SZ))
        _rule(lib, ctx, "prctl", _ArgCmp(0, SCMP_CMP_MASKED_EQ, INT32_MASK, PR_SET_DUMPABLE))
        # Compared on all 64 bits: a pid with stray upper bits is not this process either.
        for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
            _rule(lib, ctx, name, _ArgCmp(0, SCMP_CMP_NE, own_pid, 0))
        _rule(lib, ctx, "prlimit64", _ArgCmp(0, SCMP_CMP_NE, 0, 0))
        _rule(lib, ctx, "setpriority", _ArgCmp(0, SCMP_CMP_NE, PRIO_PROCESS, 0))
        _rule(lib, ctx, "setpriority", _ArgCmp(1, SCMP_CMP_NE, 0, 0))
        _rule(lib, ctx, "ioprio_set", _ArgCmp(0, SCMP_CMP_NE, IOPRIO_WHO_PROCESS, 0))
        _rule(lib, ctx, "ioprio_set", _ArgCmp(1, SCMP_CMP_NE, 0, 0))
        for name in SCHEDULING_SYSCALLS:
            _rule(lib, ctx, name, _ArgCmp(0, SCMP_CMP_GT, PID_MAX_LIMIT, 0))
            for block, size in pid_blocks(own_pid):
                mask = UINT64_MASK & ~(size - 1)  # all 64 bits: stray upper bits never match
                _rule(lib, ctx, name, _ArgCmp(0, SCMP_CMP_MASKED_EQ, mask, block))
        return _export(lib, ctx)


def pid_blocks(own_pid: int) -> list[tuple[int, int]]:
    """Aligned blocks (start, power-of-two size) that cover the pids 1 to own_pid - 1 exactly.

    libseccomp compares an argument once per rule, so "neither 0 nor below own_pid" becomes
    one masked comparison per block (at most two per bit of own_pid).
    """
    blocks, start = [], 1
    while start < own_pid:
        size = start & -start  # the largest power of two that divides start
        while start + size > own_pid:
            size //= 2
        blocks.append((start, size))
        start += size
    return blocks


class _SockFprog(ctypes.Structure):
    """`struct sock_fprog` from linux/filter.h."""

    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def install_job_filter() -> None:
    """Add the job filter to every thread of this process; raise SeccompError if it fails."""
    program = build_job_filter(os.getpid())
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:  # /proc/self/mem then belongs to root
        raise SeccompError(f"prctl(DUMPABLE) failed: {os.strerror(ctypes.get_errno())}")
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompError(f"prctl(NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    rc = libc.syscall(
        ctypes.c_long(SYS_SECCOMP),
        ctypes.c_long(SECCOMP_SET_MODE_FILTER),
        ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    if rc != 0:  # > 0 is the id of a thread that could not be synchronised
        raise SeccompError(f"the job filter was refused (rc {rc}, errno {ctypes.get_errno()})")


def _export(lib: ctypes.CDLL, ctx: int) -> bytes:
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
