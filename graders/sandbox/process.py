"""The parent's handle on one running sandbox: pipes, readiness, exit status, kill, usage."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import threading
import time
from dataclasses import dataclass

from graders.sandbox.launch import release_uid
from graders.sandbox.tmp_files import TmpCapError, cap_tmp_files

READY = b"R"  # what a warm interpreter writes on fd 4 once it waits for its job (harness.READY)
KILL_WAIT_S = 5.0
REAP_GRACE_S = 1.0


class SandboxError(RuntimeError):
    """The sandbox did not behave as the protocol expects (died early, wrong ready marker)."""


@dataclass(frozen=True)
class ExitStatus:
    """How the sandboxed program ended.

    bwrap reports a program killed by signal N as exit code 128+N; that is decoded here, so
    `signal` is set and `exit_code` is None (a program that calls exit(128+N) looks the same).
    `killed` says the parent called kill_tree() before the program ended by itself;
    `timed_out` that a fork server stopped the job at its wall-clock deadline.
    """

    exit_code: int | None
    signal: int | None
    killed: bool
    timed_out: bool = False


OUTPUT_DRAIN_S = 5.0


@dataclass(frozen=True)
class ResourceUsage:
    """Peak RSS of the largest process and CPU time (user + system) of the tree, once reaped."""

    max_rss_mb: float | None
    cpu_ms: float | None
    sys_ms: float | None = None  # the system part of cpu_ms (page faults count here)


class OutputCollector:
    """Drains the stdout+stderr pipe on a thread; keeps the first `cap` bytes, drops the rest."""

    def __init__(self, fd: int, cap: int) -> None:
        self._fd, self._cap = fd, cap
        self._data = bytearray()
        self.truncated = False
        self._thread = threading.Thread(target=self._run, name="sandbox-output", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while chunk := os.read(self._fd, 65536):
                room = self._cap - len(self._data)
                if len(chunk) > room:
                    self.truncated = True
                self._data += chunk[: max(room, 0)]
        finally:
            os.close(self._fd)

    def result(self, wait_s: float) -> tuple[bytes, bool]:
        """What was kept so far (after waiting up to `wait_s` for the end of the stream)."""
        self._thread.join(wait_s)
        return bytes(self._data), self.truncated


def _poll(fd: int, timeout_s: float | None) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(None if timeout_s is None else max(0, int(timeout_s * 1000))))


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _parent_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            return int(stat_file.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


class SandboxProcess:
    """One sandboxed interpreter; the parent talks to it over two dedicated pipes."""

    def __init__(
        self,
        *,
        pid: int,
        uid: int | None,
        job_fd: int,
        result_fd: int,
        info_fd: int,
        output: OutputCollector,
        tmp_files: int,
    ) -> None:
        self.pid = pid
        self.tmp_files = tmp_files  # /tmp's cap in files, set once the sandbox is ready
        self.job_fd = job_fd  # parent writes the job here (the child reads fd 3)
        self.result_fd = result_fd  # parent reads results here (the child writes fd 4)
        self._pipes = {fd: _identity(fd) for fd in (job_fd, result_fd)}
        self._uid, self._info_fd, self._output = uid, info_fd, output
        self._pidfd: int | None = os.pidfd_open(pid)
        self._lock = threading.Lock()
        self._info_lock = threading.Lock()
        self._info = b""
        self._init_pid: int | None = None
        self._status: ExitStatus | None = None
        self._usage = ResourceUsage(None, None)
        self._killed = False

    def wait_ready(self, timeout: float, marker: bytes = READY) -> None:
        """Block until the interpreter wrote `marker` on its result pipe; raise if it cannot."""
        deadline = time.monotonic() + timeout
        received = b""
        while len(received) < len(marker):
            if not _poll(self.result_fd, deadline - time.monotonic()):
                raise TimeoutError(f"sandbox not ready within {timeout} s")
            chunk = os.read(self.result_fd, len(marker) - len(received))
            if not chunk:
                tail = self._output.result(0.5)[0][-2000:].decode("utf-8", "replace")
                raise SandboxError(f"sandbox exited before it was ready; output: {tail}")
            received += chunk
        if received != marker:
            raise SandboxError(f"sandbox sent {received!r} instead of the ready marker")
        self._cap_tmp_files()

    def _cap_tmp_files(self) -> None:
        """Bound /tmp in files before any job: only our own code has run in it so far."""
        init_pid = self._read_init_pid(wait_s=1.0)
        if init_pid is None:
            raise SandboxError("sandbox has no init process to cap /tmp for")
        try:
            cap_tmp_files(init_pid, self.tmp_files)
        except (TmpCapError, OSError) as exc:
            raise SandboxError(str(exc)) from exc

    def is_alive(self) -> bool:
        """True until the sandbox has exited (it may have been killed)."""
        return self._reap() is None

    def wait(self, timeout: float | None = None) -> ExitStatus:
        """Reap the sandbox; raise TimeoutError if it is still running after `timeout`."""
        if self._status is None and self._pidfd is not None:
            _poll(self._pidfd, timeout)  # the pidfd stays open until close()
        status = self._reap()
        if status is None:
            raise TimeoutError(f"sandbox {self.pid} still running after {timeout} s")
        return status

    def kill_tree(self) -> None:
        """SIGKILL every process of the sandbox; return once none is left."""
        if self._reap() is not None:
            return  # it ended by itself, and its namespace with it
        self._killed = True
        init_fd = self._open_init()
        try:
            if init_fd is not None:
                with contextlib.suppress(ProcessLookupError):  # it ended since we looked
                    signal.pidfd_send_signal(init_fd, signal.SIGKILL)
                with contextlib.suppress(TimeoutError):
                    self.wait(REAP_GRACE_S)  # bwrap reaps init and exits: the usage is kept
            with self._lock:
                if self._status is None and self._pidfd is not None:
                    with contextlib.suppress(ProcessLookupError):
                        signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            self.wait(KILL_WAIT_S)
            if init_fd is not None:
                _poll(init_fd, KILL_WAIT_S)  # readable once init and its namespace are gone
        finally:
            if init_fd is not None:
                os.close(init_fd)

    def output(self) -> tuple[bytes, bool]:
        """Captured stdout+stderr (first output_bytes) and whether more was discarded."""
        # Once the sandbox has ended every writer is gone, so the reader meets EOF promptly;
        # a generous wait only matters on a machine too busy to schedule the reader thread.
        return self._output.result(OUTPUT_DRAIN_S if self._status is not None else 0.0)

    def resource_usage(self) -> ResourceUsage:
        """From wait4() of bwrap, which covers every process it and the sandbox init reaped.

        bwrap starts small (launch.py), so the peak is the sandbox's, not the launcher's.
        """
        return self._usage

    def close(self) -> None:
        """Close the parent's fds that are still open (call it once the sandbox has ended)."""
        with self._info_lock:  # close() may race with __del__ or a second close()
            pipes, self._pipes = self._pipes, {}
        for fd, identity in pipes.items():
            with contextlib.suppress(OSError):
                if _identity(fd) == identity:  # not closed by the caller and reused since
                    os.close(fd)
        with self._info_lock:
            self._close_info()
        with self._lock:
            if self._status is not None and self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            if self._status is None:
                self.kill_tree()
            self.close()

    def _open_init(self) -> int | None:
        """A pidfd of the sandbox's pid-namespace init, checked to be bwrap's child."""
        pid = self._read_init_pid(wait_s=1.0)
        if pid is None:
            return None
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            return None
        if _parent_pid(pid) != self.pid:  # not ours (already reaped and the pid reused)
            os.close(fd)
            return None
        return fd

    def _read_init_pid(self, wait_s: float) -> int | None:
        """The host pid of the namespace's init, from bwrap's --info-fd JSON."""
        deadline = time.monotonic() + wait_s
        with self._info_lock:
            while self._init_pid is None and self._info_fd >= 0:
                if not _poll(self._info_fd, deadline - time.monotonic()):
                    return None
                chunk = os.read(self._info_fd, 4096)
                self._info += chunk
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    self._init_pid = int(json.loads(self._info)["child-pid"])
                if not chunk or self._init_pid is not None:
                    self._close_info()
            return self._init_pid

    def _close_info(self) -> None:
        if self._info_fd >= 0:
            os.close(self._info_fd)
            self._info_fd = -1

    def _reap(self) -> ExitStatus | None:
        """Collect the exit status and rusage if bwrap has ended (never blocks)."""
        with self._lock:
            if self._status is not None:
                return self._status
            try:
                pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped behind our back: the status is unknown
                self._status = ExitStatus(None, None, self._killed)
            else:
                if pid == 0:
                    return None
                self._status = self._decode(status)
                cpu = (usage.ru_utime + usage.ru_stime) * 1000
                self._usage = ResourceUsage(
                    round(usage.ru_maxrss / 1024, 1), round(cpu, 1), round(usage.ru_stime * 1000, 1)
                )
            release_uid(self._uid)
            return self._status

    def _decode(self, status: int) -> ExitStatus:
        if os.WIFSIGNALED(status):
            return ExitStatus(None, os.WTERMSIG(status), self._killed)
        code = os.WEXITSTATUS(status)
        if code > 128 and code - 128 in signal.valid_signals():
            return ExitStatus(None, code - 128, self._killed)
        return ExitStatus(code, None, self._killed)
