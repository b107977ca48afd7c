"""The one exchange with a sandboxed job: send it, read its results, stop it at its deadline.

Grading jobs (graders/engine.py) and experiments (graders/lab/experiments.py) share this loop;
they differ only in the sink that takes the result bytes as they arrive.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Protocol

from graders import protocol, results
from graders.host.pool import Running
from graders.raw_run import RawRun


class StopRequested(Exception):
    """Raised by a sink's progress callback: the student asked to stop this run."""


class Sink(Protocol):
    """Takes the result bytes while the job runs, then says what came back."""

    @property
    def done(self) -> bool:
        """No more bytes are wanted (the END frame came, or the stream broke)."""
        ...

    @property
    def broken(self) -> bool:
        """The stream cannot be trusted any more: the job is killed at once."""
        ...

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes; may raise StopRequested."""
        ...

    def result(self, overflow: bool) -> tuple[dict[int, protocol.Result], bool, str | None]:
        """(frames, whether the END frame came, a protocol error for the student or None)."""
        ...


class BufferSink:
    """Keeps every byte, decodes them once the job is over (an ordinary grading job)."""

    done = False
    broken = False

    def __init__(self, wanted: list[int], max_bytes: int = protocol.RESULT_BYTES) -> None:
        self._buffer = bytearray()
        self._wanted = wanted
        self._max_bytes = max_bytes

    def feed(self, chunk: bytes) -> None:
        """Keep the bytes; nothing is decoded while the job runs."""
        self._buffer.extend(chunk)

    def result(self, overflow: bool) -> tuple[dict[int, protocol.Result], bool, str | None]:
        """Decode the whole stream; a cut-off stream is not the student's interference."""
        try:
            frames = results.decode_results(bytes(self._buffer), self._wanted, self._max_bytes)
            return frames, not overflow, None
        except protocol.ProtocolError as exc:
            frames = dict(getattr(exc, "partial", {}))
            if isinstance(exc, protocol.TruncatedStream | protocol.IncompleteResults):
                return frames, False, None
            return frames, False, interfered(str(exc))


def interfered(why: str) -> str:
    """The student's message when the result channel was tampered with."""
    return f"Your code interfered with the grader's result channel ({why})."


def exchange(
    proc: Running,
    job: bytes,
    sink: Sink,
    *,
    deadline_s: float,
    exit_grace_s: float,
    result_bytes: int,
    server_grace_s: float = 0.0,
    memory_limit_mb: int = 0,
    name: str = "results",
) -> RawRun:
    """Send the job, feed its results to `sink` until done, the byte budget or the wall clock.

    `server_grace_s` is the time a fork server gets to stop its child at the deadline itself
    (it then reports the child's CPU and memory); the whole sandbox is killed only after it.
    A stop asked for by the sink (StopRequested) kills the job at once.
    """
    started = time.monotonic()
    deadline = started + deadline_s + server_grace_s
    overflow, stopped = threading.Event(), threading.Event()

    def reader() -> None:
        received = 0
        while not sink.done:
            try:
                chunk = os.read(proc.result_fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            received += len(chunk)
            if received > result_bytes:
                overflow.set()  # stop reading: the job is killed below, not left blocked
                return
            try:
                sink.feed(chunk)
            except StopRequested:
                stopped.set()
                return

    thread = threading.Thread(target=reader, daemon=True, name=name)
    thread.start()
    try:
        _write_all(proc.job_fd, job)
    except OSError:
        pass  # the interpreter died early; the exit status tells why
    finally:
        os.close(proc.job_fd)
    thread.join(max(deadline - time.monotonic(), 0.0))
    timed_out = thread.is_alive()
    if timed_out or overflow.is_set() or stopped.is_set() or sink.broken:
        proc.kill_tree()
        thread.join(5)
    frames, ended, error = sink.result(overflow.is_set())
    try:
        # The result channel can close early (a job may close fd 4 itself), so the wall clock
        # still runs until the process has exited.
        status = proc.wait(timeout=max(deadline - time.monotonic(), 0.0) + exit_grace_s)
    except TimeoutError:
        timed_out = timed_out or not (sink.done or overflow.is_set())
        proc.kill_tree()
        status = proc.wait(timeout=5)
    output, truncated = proc.output()
    usage = proc.resource_usage()
    return RawRun(
        frames=frames,
        ended=ended,
        timed_out=timed_out or status.timed_out,
        exit_code=status.exit_code,
        exit_signal=status.signal,
        output=output.decode("utf-8", "replace"),
        output_truncated=truncated,
        max_rss_mb=usage.max_rss_mb,
        cpu_ms=usage.cpu_ms,
        sys_ms=usage.sys_ms,
        wall_ms=round((time.monotonic() - started) * 1000),
        protocol_error=error,
        result_overflow=overflow.is_set(),
        time_limit_ms=round(deadline_s * 1000),
        memory_limit_mb=memory_limit_mb,
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
