"""Runs INSIDE the sandbox: a fork server that imported its framework once, one child per job.

Why: importing NumPy costs ~60 ms of CPU, most of a fresh interpreter's cost, and two cores cap
a one-sandbox-per-job pool near 20 jobs/s. This process (the sandbox's pid 1) imports once and
then, for every job, forks a child that takes that one job and exits. It never runs student code
itself and never sees a job's inputs (the child reads them from its own pipe).

Isolation between consecutive jobs of one fork server:
- one job at a time; after each, every other process of the pid namespace is SIGKILLed and
  reaped (`kill(-1)` from pid 1 reaches them all) and System V IPC objects must be absent (the
  seccomp filter refuses creating them); if anything is left the server reports "not clean"
  and exits, and the grader replaces the whole sandbox. Then, the job's status sent, /tmp is
  emptied by cleaner children on a time budget (cleaner.py); only a /tmp that cannot be
  emptied at all ends the server;
- the server is not dumpable, so a child cannot open /proc/1/mem or /proc/1/fd, and as pid 1 it
  ignores every signal a child sends it;
- what a process of the same uid may change in another (rlimits, nice value, scheduling policy
  and attributes, affinity, I/O priority, ...: the list is in inherited.py) is compared with
  its value at start after every job; any change also means "not clean", since the next child
  would inherit it (the job filter refuses each such call in the first place);
- the child gets only its job's descriptors (job 3, result 4, output 1 and 2, /dev/null 0).
JAX is unsafe to fork once its backend has started (threads): a JAX server imports JAX but
never starts it; instead it keeps one *warm child*, forked in advance, which starts the backend
and runs the exercise's warm-up at low priority while no job waits for it, then waits for its
job. The job's descriptors reach it only when a job comes; the next warm child is forked after
the job ended and the server cleaned up, so jobs and warm-ups never overlap in one sandbox.

The server keeps each job's wall clock: it SIGKILLs the child at the deadline and reports
`timed_out` with the child's CPU time and peak memory (a loop that never ends, or code that
waited); the grader kills the whole sandbox if the server misses a later deadline of its own.

Wire: the grader sends each job as the byte "J" and the job's wall-clock limit in milliseconds
(4 bytes, big-endian), with three descriptors (SCM_RIGHTS), on the control socket (fd 3); the
server answers on fd 4 with a 4-byte big-endian length and a JSON status, then the byte "R"
once it can take the next job (once /tmp is empty and, for JAX, its next warm child is ready).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

CONTROL_FD, STATUS_FD = 3, 4
READY = b"R"
PR_SET_DUMPABLE = 4


def _not_dumpable() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def _kill_the_rest() -> None:
    """SIGKILL and reap every process of the namespace but this one."""
    while True:
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # orphans are re-parented to pid 1, so no child means no other process
        if pid == 0:
            time.sleep(0.0005)


def _no_ipc_objects() -> bool:
    for kind in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{kind}", "rb") as table:
                if len(table.read().splitlines()) > 1:  # a header line, then one per object
                    return False
        except FileNotFoundError:
            continue
    return True


def _cleanup(changed: Callable[[], list[str]]) -> bool:
    """No process left, no IPC object, nothing the next child inherits changed (/tmp: later)."""
    _kill_the_rest()
    try:
        return _no_ipc_objects() and not changed()
    except OSError:
        return False


START_NICE = 10  # a fork server's own work (a start a job waits for, a fork, a clean-up)
BACKGROUND_NICE = 19  # a start nobody waits for (imports, JAX warm-ups): what the CPU has to spare
SESSION_NICE_RETRY_S = 2.0
WARM_TIMEOUT_S = 300.0
WARM_BYTE = b"W"


class _WarmChild:
    """A child forked ahead of its job: it runs `prepare` (start JAX, warm up), then waits."""

    def __init__(self, prepare: Callable[[], None], run_one: Callable[[], None]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the warm child
            ours.close()
            _warm_then_wait(theirs, prepare, run_one)
        theirs.close()
        self.pid, self.sock = pid, ours

    def ready(self) -> bool:
        """Wait until the child says it is warm; False if it died or never got there."""
        self.sock.settimeout(WARM_TIMEOUT_S)
        try:
            ok = self.sock.recv(1) == WARM_BYTE
        except OSError:
            ok = False
        if not ok:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.sock.close()
        return ok

    def hand_over(self, fds: list[int]) -> bool:
        """Give the child its job's descriptors; False if it is gone."""
        try:
            socket.send_fds(self.sock, [b"J"], fds)
        except OSError:
            return False
        finally:
            self.sock.close()
        return True


def _warm_then_wait(
    sock: socket.socket, prepare: Callable[[], None], run_one: Callable[[], None]
) -> None:  # pragma: no cover - the warm child
    try:
        os.close(CONTROL_FD)  # the server's channels are not the child's business
        os.close(STATUS_FD)
        prepare()
        sock.sendall(WARM_BYTE)
        _, fds, _, _ = socket.recv_fds(sock, 1, 3)
        if len(fds) != 3:
            os._exit(1)
        _child(fds, run_one)
    finally:
        os._exit(1)


def _child(fds: list[int], run_one: Callable[[], None]) -> None:
    """In the forked child: take this job's descriptors only, run it, exit."""
    try:
        job_r, result_w, out_w = fds
        os.dup2(job_r, CONTROL_FD)  # replaces the control socket
        os.dup2(result_w, STATUS_FD)  # replaces the status pipe
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.closerange(STATUS_FD + 1, 1 << 16)
        os.setsid()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        run_one()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(0)


def _wait_child(pid: int, wall_ms: int) -> tuple[int, Any, bool]:
    """wait4 the job's child, SIGKILLing it at its deadline; (status, rusage, timed_out)."""
    pidfd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        timed_out = not poller.poll(wall_ms)
        if timed_out:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    finally:
        os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    return status, usage, timed_out


def _send_status(status: dict[str, Any], then: bytes = b"") -> None:
    body = json.dumps(status).encode()
    data = memoryview(len(body).to_bytes(4, "big") + body + then)
    while data:
        data = data[os.write(STATUS_FD, data) :]


def _next_warm_child(
    prepare: Callable[[], None] | None, run_one: Callable[[], None]
) -> _WarmChild | None:
    """A warm child for the next job (prewarm mode), tried twice; raises if none gets warm."""
    if prepare is None:
        return None
    for _ in range(2):
        child = _WarmChild(prepare, run_one)
        if child.ready():
            return child
    raise RuntimeError("no warm child could be prepared")


def _start_child(
    fds: list[int], warm: _WarmChild | None, run_one: Callable[[], None], control: socket.socket
) -> int:
    """The pid running this job: the warm child, or a child forked now."""
    if warm is not None and warm.hand_over(fds):
        return warm.pid
    if warm is not None:  # the warm child died: reap it, run the job in a plain fork
        with contextlib.suppress(ChildProcessError):
            os.waitpid(warm.pid, 0)
    pid = os.fork()
    if pid == 0:
        control.detach()
        _child(fds, run_one)
    return pid


def set_session_nice(nice: int) -> bool:
    """Set this sandbox's session (autogroup) nice value (0-19, up or down); False if none.
    Retried: Linux takes one such change per 100 ms from unprivileged processes, machine-wide,
    and refuses the rest (EAGAIN), which a buffered file's close once lost. A session already
    at `nice` is left alone: that write waited out the limit for nothing (100 ms of a start)."""
    if _session_nice() == nice:
        return True
    try:
        fd = os.open("/proc/self/autogroup", os.O_WRONLY)
    except OSError:
        return False  # a kernel without autogroup
    deadline = time.monotonic() + SESSION_NICE_RETRY_S
    try:
        while True:
            try:
                return os.write(fd, str(nice).encode()) > 0
            except BlockingIOError:  # another session changed within the last 100 ms
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.02)
    except OSError:
        return False
    finally:
        os.close(fd)


def _session_nice() -> int | None:
    """This session's nice value ("/autogroup-42 nice 10"), or None if it cannot be read."""
    try:
        fd = os.open("/proc/self/autogroup", os.O_RDONLY)
    except OSError:
        return None
    try:
        return int(os.read(fd, 128).split()[-1])
    except (OSError, ValueError, IndexError):
        return None
    finally:
        os.close(fd)


def start_in_background(*, nobody_waits: bool) -> None:
    """Lower this sandbox's session while the server starts: Linux shares the CPU between
    sessions before threads (autogroup), so a start got as large a share as a whole web tier
    (issue 23). Nobody waiting (the fill after a restart): 19, spare CPU only (at 10 a class's
    pages still lost 12-18% of the cores to it); a job waiting: 10. Each job is a session at 0.
    """
    set_session_nice(BACKGROUND_NICE if nobody_waits else START_NICE)


def serve_in_foreground() -> None:
    """Once started, the server's work between jobs (a fork, the clean-up) at 10, as measured
    (`burst` Flax max 6.5 -> 5.6 s, `lab` p95 543 -> 450 ms). Call before `serve`: not dumpable,
    its /proc files belong to root and it cannot change its session any more."""
    set_session_nice(START_NICE)


def serve(
    run_one: Callable[[], None],
    prepare: Callable[[], None] | None = None,
    *,
    threads_ok: bool = False,
) -> None:
    """Say ready, then run one child per job until the grader closes the control socket.

    With `prepare`, each job runs in a child forked and prepared ahead of it (see above).
    `threads_ok`: a warmed JAX server forks although its backend's threads exist (the child
    runs only what was compiled before the fork; graders/inside/harness.py guards the rest).
    """
    _not_dumpable()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)  # as pid 1: signals from children are ignored
    threads = _threads()
    if threads != 1 and not threads_ok:
        raise RuntimeError("the framework started threads; forking it would not be safe")
    control = socket.socket(fileno=CONTROL_FD)
    import cleaner  # type: ignore[import-not-found]  # bound beside this file
    import inherited  # type: ignore[import-not-found]

    expected = inherited.snapshot()
    kept = cleaner.kept_mounts()
    warm = _next_warm_child(prepare, run_one)
    os.write(STATUS_FD, READY)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 5, 3)
        except (ConnectionError, OSError):
            return
        if len(fds) != 3 or len(message) != 5 or message[:1] != b"J":
            return  # the grader closed the socket (or sent garbage): this server is done
        wall_ms = int.from_bytes(message[1:], "big")
        sys.stdout.flush()
        sys.stderr.flush()
        started = time.monotonic()
        pid = _start_child(fds, warm, run_one, control)
        for fd in fds:
            os.close(fd)
        status, usage, timed_out = _wait_child(pid, wall_ms)
        elapsed_ms = (time.monotonic() - started) * 1000
        clean = _cleanup(lambda: inherited.changed(expected))
        dirty = clean and not cleaner.is_empty(kept)
        _send_status(
            {
                "status": status,
                "max_rss_kb": usage.ru_maxrss,
                "cpu_ms": round((usage.ru_utime + usage.ru_stime) * 1000, 1),
                "sys_ms": round(usage.ru_stime * 1000, 1),
                "wall_ms": round(elapsed_ms, 1),
                "timed_out": timed_out,
                "clean": clean,
            },
            then=READY if clean and not dirty and prepare is None else b"",  # at once: one write
        )  # before /tmp is emptied: the job's time and verdict never include that
        if not clean or (dirty and not cleaner.empty_tmp(kept)):
            return  # the grader reads the end of the stream instead of "R" and replaces it
        if prepare is not None:
            warm = _next_warm_child(prepare, run_one)
        if dirty or prepare is not None:
            os.write(STATUS_FD, READY)
