"""The grader's side of a sandboxed fork server (graders/inside/zygote.py): one child per job.

A `ForkedJob` offers what the engine uses of a `SandboxProcess` (job and result pipes, wait,
kill, output, usage), so a job runs the same way whether it got a fresh interpreter or a child
of a fork server. The server stops a job at its deadline itself and cleans up as after any job.
Any doubt (the grader had to kill the sandbox, a malformed or missing status, a server that
says it could not clean up) ends the whole sandbox; the pool starts a new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import time
from dataclasses import replace

from graders.sandbox import READY, ExitStatus, ResourceUsage, SandboxProcess
from graders.sandbox.process import OUTPUT_DRAIN_S, OutputCollector

MAX_STATUS_BYTES = 4096
JOB_BYTE = b"J"


class ForkServerGone(RuntimeError):
    """The fork server ended or refused the job before its child started."""


class ForkServer:
    """A warm sandbox whose pid 1 forks one child per job; used for one job at a time."""

    def __init__(self, proc: SandboxProcess, *, key: str, max_jobs: int, output_bytes: int) -> None:
        self.proc = proc
        self.key = key  # the pool's key (framework)
        self.jobs = 0
        self.max_jobs = max_jobs
        self.output_bytes = output_bytes
        self.broken = False

    def is_alive(self) -> bool:
        """Alive and willing to take another job."""
        return not self.broken and self.jobs < self.max_jobs and self.proc.is_alive()

    def start_job(self, wall_ms: int) -> ForkedJob:
        """Hand the server fresh pipes for one job; the caller writes the job and reads frames.

        The server stops the job's child after `wall_ms` milliseconds (graders/inside/zygote.py).
        """
        opened: list[int] = []
        try:
            job_r, job_w = os.pipe()
            opened += [job_r, job_w]
            result_r, result_w = os.pipe()
            opened += [result_r, result_w]
            out_r, out_w = os.pipe()
            opened += [out_r, out_w]
            control = socket.socket(fileno=self.proc.job_fd)
            try:
                message = JOB_BYTE + max(wall_ms, 1).to_bytes(4, "big")
                socket.send_fds(control, [message], [job_r, result_w, out_w])
            finally:
                control.detach()
        except OSError as exc:
            for fd in opened:
                os.close(fd)
            self.broken = True
            raise ForkServerGone(f"the fork server did not take the job: {exc}") from exc
        for fd in (job_r, result_w, out_w):
            os.close(fd)
        self.jobs += 1
        return ForkedJob(self, job_fd=job_w, result_fd=result_r, output=out_r)

    def poll_ready(self, timeout: float) -> bool:
        """Wait up to `timeout` for the server's "ready for the next job" byte (after a job)."""
        fd = self.proc.result_fd
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
            marker = os.read(fd, 1) if ready else b""
        except OSError:
            marker = b""
        if marker == READY:
            return True
        if ready:  # anything else, or the end of the stream: this server is done
            self.broken = True
        return False

    def discard(self) -> None:
        """Kill the whole sandbox and close its descriptors."""
        self.broken = True
        self.proc.kill_tree()
        self.proc.close()


class ForkedJob:
    """One job running in a child of a fork server."""

    def __init__(self, server: ForkServer, *, job_fd: int, result_fd: int, output: int) -> None:
        self.server = server
        self.job_fd = job_fd  # the engine closes this one once the job is written
        self.result_fd = result_fd
        self._pipes = {fd: _identity(fd) for fd in (job_fd, result_fd)}
        self._output = OutputCollector(output, server.output_bytes)
        self._status: ExitStatus | None = None
        self._usage = ResourceUsage(None, None)
        self._clean = False
        self.started = time.monotonic()

    @property
    def reusable(self) -> bool:
        """True when the job ended and the server cleaned up after it."""
        return self._status is not None and self._clean and not self.server.broken

    def is_alive(self) -> bool:
        """True until the server reported this job's end (or the sandbox is gone)."""
        return self._status is None and self.server.proc.is_alive()

    def wait(self, timeout: float | None = None) -> ExitStatus:
        """The child's exit status, reported by the server once it cleaned up after it."""
        if self._status is None:
            self._read_status(timeout)
        assert self._status is not None
        return self._status

    def _read_status(self, timeout: float | None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        fd = self.server.proc.result_fd
        header = self._read(fd, 4, deadline)
        size = int.from_bytes(header, "big") if len(header) == 4 else -1
        body = self._read(fd, size, deadline) if 0 < size <= MAX_STATUS_BYTES else b""
        try:
            report = json.loads(body)
            raw = int(report["status"])
            max_rss_kb = float(report["max_rss_kb"])
            cpu_ms = float(report["cpu_ms"])
            sys_ms = float(report["sys_ms"])
            timed_out = report["timed_out"] is True
            clean = report["clean"] is True
        except (ValueError, KeyError, TypeError):
            # The server died (its sandbox was killed) or sent nonsense: it is not reused.
            self.server.broken = True
            self._status = ExitStatus(None, None, killed=False)
            return
        self._status = replace(_decode(raw), timed_out=timed_out)
        self._usage = ResourceUsage(round(max_rss_kb / 1024, 1), round(cpu_ms, 1), round(sys_ms, 1))
        self._clean = clean
        if not clean:
            self.server.broken = True

    def _read(self, fd: int, size: int, deadline: float | None) -> bytes:
        data = b""
        while len(data) < size:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                raise TimeoutError(f"job still running after {remaining} s")
            chunk = os.read(fd, size - len(data))
            if not chunk:
                return data
            data += chunk
        return data

    def kill_tree(self) -> None:
        """SIGKILL the whole sandbox (the job's processes and the server); none is reused."""
        self.server.broken = True
        self.server.proc.kill_tree()
        if self._status is None:
            self._status = ExitStatus(None, signal.SIGKILL, killed=True)
            self._usage = self.server.proc.resource_usage()

    def output(self) -> tuple[bytes, bool]:
        """The job's stdout+stderr (first output_bytes) and whether more was discarded."""
        return self._output.result(OUTPUT_DRAIN_S if self._status is not None else 0.0)

    def resource_usage(self) -> ResourceUsage:
        """The child's peak RSS and CPU time, as the server's wait4() saw them."""
        return self._usage

    def close(self) -> None:
        """Close the job's descriptors that are still open (not closed and reused since)."""
        pipes, self._pipes = self._pipes, {}
        for fd, identity in pipes.items():
            with contextlib.suppress(OSError):
                if _identity(fd) == identity:
                    os.close(fd)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _decode(raw: int) -> ExitStatus:
    if os.WIFSIGNALED(raw):
        return ExitStatus(None, os.WTERMSIG(raw), killed=False)
    if os.WIFEXITED(raw):
        return ExitStatus(os.WEXITSTATUS(raw), None, killed=False)
    return ExitStatus(None, None, killed=False)
