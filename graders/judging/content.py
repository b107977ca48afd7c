"""An exercise's own code (cases, reference, properties, declared mistakes) run in the sandbox.

Editors can write these files in a browser (issue 50), so they are not trusted: each run is a
fresh sandbox (graders/inside/content_harness.py) with the limits, seccomp job filter and empty
environment of a student's, no network, and only the exercise's folder, read-only. Nothing of
the app is visible there: no other course, no `var/`, no database, no SECRET_KEY. The grader
keeps only what comes back through the result frames (arrays, error types and messages).
These runs happen when a cache misses (case inputs, expected outputs and mistakes' outputs are
kept by content hash), so grading that hits the caches starts no sandbox for them.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graders import jobs, protocol, results
from graders.host.binds import bind_files, in_sandbox
from graders.sandbox import SandboxLimits, sandbox_python, spawn

EXERCISE = "/exercise"  # where the sandbox sees the exercise's folder (read-only)
OUTPUT_ARG = "_property_output_"  # content_harness.OUTPUT_ARG
CONTENT_ERROR = "ContentError"
TIMEOUT_S = 300.0
RESULT_BYTES = 1 << 30
FILES = ("content_harness.py", "harness.py", "messages.py", "job_limits.py", "protocol.py")
Frames = dict[int, protocol.Result]


class ContentRunError(RuntimeError):
    """The sandbox could not run the exercise's code at all (it died, timed out, broke frames)."""


@dataclass(frozen=True)
class ContentLimits:
    """A content run's limits: a student job's kind of bounds, wide enough for a framework."""

    memory_mb: int = 2048
    cpu_seconds: int = 240
    timeout_s: float = TIMEOUT_S


def run(
    folder: Path,
    batch: list[protocol.Job],
    *,
    limits: ContentLimits | None = None,
    background: bool = False,
) -> list[bytes]:
    """Run the jobs in one fresh sandbox that sees `folder` only; their result streams in order.

    Each job yields one stream (two for `cases`). `background`: nobody waits (a cache fill), so
    the sandbox runs at nice 19 like the trusted children it replaces.
    """
    limits = limits or ContentLimits()
    payload = b"".join(
        len(data).to_bytes(8, "big") + data
        for data in (
            jobs.encode_job(_with_limits(job, limits.memory_mb, limits.cpu_seconds))
            for job in batch
        )
    )
    argv = [sandbox_python(), "-E", "-s", "-B", in_sandbox("content_harness.py")]
    if background:
        argv = ["nice", "-n", "19", *argv]
    binds = [*bind_files(*FILES, "seccomp.py"), (str(folder), EXERCISE)]
    sandbox_limits = SandboxLimits(
        cpu_seconds=limits.cpu_seconds + 60,  # the framework's import comes on top
        memory_mb=limits.memory_mb,
        max_processes=64,
        max_file_mb=16,
        max_open_files=256,
        output_bytes=64 * 1024,
        tmpfs_mb=64,
    )
    try:
        proc = spawn(argv, limits=sandbox_limits, ro_binds=binds, env={})
    except (RuntimeError, OSError) as exc:  # no bwrap, no user namespaces: health says why
        raise ContentRunError(f"the sandbox could not start ({exc})") from None
    received = bytearray()
    overflow = threading.Event()

    def reader() -> None:
        while chunk := _read(proc.result_fd):
            received.extend(chunk)
            if len(received) > RESULT_BYTES:
                overflow.set()
                return

    thread = threading.Thread(target=reader, daemon=True, name="content-results")
    thread.start()
    try:
        try:
            _write_all(proc.job_fd, payload)
        except OSError:
            pass  # it died early: its exit status and output say why
        finally:
            os.close(proc.job_fd)
        thread.join(limits.timeout_s)
        timed_out = thread.is_alive()
        if timed_out or overflow.is_set():
            proc.kill_tree()
            thread.join(5)
        try:
            status = proc.wait(timeout=5)
        except TimeoutError:
            proc.kill_tree()
            status = proc.wait(timeout=5)
        output, _ = proc.output()
    finally:
        proc.kill_tree()
        proc.close()
    if timed_out:
        raise ContentRunError(f"it ran for more than {limits.timeout_s:.0f} s")
    if overflow.is_set():
        raise ContentRunError(f"it sent more than {RESULT_BYTES >> 20} MB of results")
    streams = _split(bytes(received))
    wanted = sum(2 if job.mode == "cases" else 1 for job in batch)
    if len(streams) != wanted:
        tail = output.decode("utf-8", "replace")[-2000:]
        raise ContentRunError(f"it stopped early (exit status {status.exit_code}): {tail}")
    return streams


def _with_limits(job: protocol.Job, memory_mb: int, cpu_seconds: int) -> protocol.Job:
    return protocol.Job(
        entry_name=job.entry_name,
        entry_kind=job.entry_kind,
        framework=job.framework,
        mode=job.mode,
        cases=job.cases,
        code=job.code,
        memory_mb=memory_mb,
        cpu_seconds=cpu_seconds,
    )


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 1 << 16)
    except OSError:
        return b""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _split(data: bytes) -> list[bytes]:
    streams, at = [], 0
    while at + 8 <= len(data):
        size = int.from_bytes(data[at : at + 8], "big")
        if at + 8 + size > len(data):
            break
        streams.append(data[at + 8 : at + 8 + size])
        at += 8 + size
    return streams


def decode(stream: bytes, wanted: list[int]) -> Frames:
    """One job's frames; a broken stream is the content's fault, said as such."""
    try:
        return results.decode_results(stream, wanted, RESULT_BYTES)
    except protocol.ProtocolError as exc:
        raise ContentRunError(f"its results could not be read ({exc})") from None


def file_error(frames: Frames) -> protocol.RaisedError | None:
    """The error that stopped a whole content file (it did not load), if any."""
    found = frames.get(protocol.FILE_LEVEL_TEST)
    return found if isinstance(found, protocol.RaisedError) else None


def describe(error: protocol.RaisedError) -> str:
    """An author's view of an error: a content contract as written, else `Type: message`."""
    if error.type_name == CONTENT_ERROR:
        return error.message
    return f"{error.type_name}: {error.message}"


def read_cases(
    folder: Path, slug: str, *, seed: int, sizes: int
) -> tuple[list[dict[str, Any]], list[np.ndarray]]:
    """cases.py's cases (fixed visible, generated, hidden) as the sandbox described them, and
    their arrays; the properties they name are checked to exist in properties.py.

    Raises ContentRunError when cases.py fails; the message says why in the author's terms.
    """
    job = protocol.Job(
        entry_name=slug,
        entry_kind="content",
        framework="numpy",
        mode="cases",
        cases=[protocol.JobCase(0, {"seed": seed, "sizes": sizes})],
    )
    head, body = run(folder, [job])
    described = decode(head, [0])
    error = file_error(described)
    if error is not None:
        raise ContentRunError(f"{slug}/cases.py failed: {describe(error)}")
    raw = described[0]
    if not isinstance(raw, np.ndarray) or raw.dtype != np.uint8:
        raise ContentRunError(f"{slug}/cases.py: its cases came back in an unknown form")
    meta = json.loads(raw.tobytes().decode("utf-8"))
    count = meta["arrays"]
    if type(count) is not int or not 0 <= count < protocol.FILE_LEVEL_TEST:
        raise ContentRunError(f"{slug}/cases.py: its cases came back in an unknown form")
    arrays = decode(body, list(range(count)))
    if not isinstance(meta.get("cases"), list) or not all(
        isinstance(arrays.get(i), np.ndarray) for i in range(count)
    ):
        raise ContentRunError(f"{slug}/cases.py: its cases came back in an unknown form")
    return meta["cases"], [arrays[i] for i in range(count)]  # type: ignore[misc]
