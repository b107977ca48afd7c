"""The experiment lab on the grader's side: its own lane, its own sandbox, progress relayed.

An experiment trains a model for tens of seconds, so it never takes a warm-pool interpreter (a
fork-server slot an ordinary job is waiting for): it starts a fresh sandboxed interpreter of its
own (graders/inside/experiment_harness.py), and at most `slots` run at once. Progress frames are
passed on while the run goes; the rest are collected and judged by graders/lab/lab_report.py.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from graders import jobs, protocol
from graders.host.binds import bind_files, in_sandbox
from graders.host.exchange import StopRequested as StopRequested  # the Stop app/jobs raises
from graders.host.exchange import exchange, interfered
from graders.lab.lab_check import probes
from graders.lab.lab_scoring import LabSpec, eval_sequences
from graders.raw_run import RawRun
from graders.sandbox import SandboxLimits, SandboxProcess, sandbox_python, spawn

PROGRESS_ID = protocol.PROGRESS_ID  # the numbers graders/inside/experiment_harness.py sends
TRAINING_ID, LOSSES_ID, PICTURE_ID = protocol.TRAINING_ID, protocol.LOSSES_ID, protocol.PICTURE_ID
REFUSED_ID, PREDICTED_ID = protocol.REFUSED_ID, protocol.PREDICTED_ID
SLOTS = protocol.LAB_SLOTS
RESULT_BYTES = 1 << 20  # a run sends a few hundred small frames; more is a flood
READY_TIMEOUT_S = 60.0
EXIT_GRACE_S = 2.0
Progress = Callable[[dict[str, float]], None]


class FrameStream:
    """Decodes frames as bytes arrive: progress goes to the callback, the rest is kept."""

    def __init__(self, on_progress: Progress | None) -> None:
        self.frames: dict[int, protocol.Result] = {}
        self.ended = False
        self.error: str | None = None
        self._buffer = bytearray()
        self._on_progress = on_progress
        self._counted = 0
        self.last_progress: dict[str, float] | None = None
        self.stopped = False

    @property
    def done(self) -> bool:
        """Nothing more is read once the END frame came or the stream broke."""
        return self.ended or self.error is not None

    @property
    def broken(self) -> bool:
        """A broken stream: the run is killed at once."""
        return self.error is not None

    def result(self, overflow: bool) -> tuple[dict[int, protocol.Result], bool, str | None]:
        """The frames kept, whether END came, and the student's message if the stream broke."""
        return dict(self.frames), self.ended, self.error and interfered(self.error)

    def feed(self, chunk: bytes) -> None:
        """Take more bytes; decodes every complete frame in the buffer."""
        from graders.results import _raised

        self._buffer.extend(chunk)
        while self.error is None and len(self._buffer) >= protocol.HEADER_SIZE:
            try:
                head = protocol._parse_header(bytes(self._buffer[: protocol.HEADER_SIZE]))
            except protocol.ProtocolError as exc:
                self.error = str(exc)
                return
            end = protocol.HEADER_SIZE + head.length
            if len(self._buffer) < end:
                return
            payload = bytes(self._buffer[protocol.HEADER_SIZE : end])
            del self._buffer[:end]
            try:
                self._take(head, payload, _raised)
            except protocol.ProtocolError as exc:
                self.error = str(exc)

    def _take(self, head: Any, payload: bytes, raised: Callable[[bytes], Any]) -> None:
        if self.ended:
            raise protocol.UnexpectedFrame("a frame followed the END frame")
        if head.kind == protocol.Kind.END:
            (count,) = np.frombuffer(payload, dtype="<u4")
            if int(count) != self._counted:
                raise protocol.IncompleteResults("the END frame does not count the frames sent")
            self.ended = True
            return
        if head.kind == protocol.Kind.JOB:
            raise protocol.UnexpectedFrame("a JOB frame appeared among the results")
        value = protocol._array(head, payload) if head.kind == protocol.Kind.ARRAY else None
        if head.test == PROGRESS_ID:
            if value is not None and value.size == 3 and self._on_progress is not None:
                step, steps, loss = (float(v) for v in value.reshape(-1))
                loss_value = loss if math.isfinite(loss) else float("nan")
                frame = {"step": int(step), "steps": int(steps), "loss": loss_value}
                self.last_progress = frame
                try:
                    self._on_progress(frame)
                except StopRequested:
                    self.stopped = True
                    raise
            return
        if head.test in self.frames:
            raise protocol.UnexpectedFrame(f"two results arrived for {head.test}")
        self.frames[head.test] = value if value is not None else raised(payload)
        self._counted += 1


class Lab:
    """Runs experiments in fresh sandboxes, at most `slots` at a time (they wait for a turn)."""

    def __init__(self, *, slots: int = 1, memory_mb: int = 2048, max_processes: int = 64) -> None:
        self._turns = threading.BoundedSemaphore(max(1, slots))
        self.memory_mb = memory_mb
        self.max_processes = max_processes

    def run(
        self,
        spec: LabSpec,
        *,
        code: str,
        entry_name: str,
        time_ms: int,
        memory_mb: int,
        progress: Progress | None = None,
    ) -> RawRun:
        """One experiment, once a lane is free; the clock starts when the sandbox is ready."""
        memory = min(memory_mb, self.memory_mb)
        cpu_seconds = math.ceil(time_ms / 1000) + 1  # torch runs on one thread here
        job = jobs.encode_job(
            protocol.Job(
                entry_name=entry_name,
                entry_kind="experiment",
                framework="torch",
                mode="submit",
                code=code,
                cases=[protocol.JobCase(0, _job_args(spec))],
                memory_mb=memory,
                cpu_seconds=cpu_seconds,
            )
        )
        with self._turns:
            proc = self._start(cpu_seconds)
            try:
                proc.wait_ready(READY_TIMEOUT_S)
                stream = FrameStream(progress)
                run = exchange(
                    proc,
                    job,
                    stream,
                    deadline_s=time_ms / 1000,
                    exit_grace_s=EXIT_GRACE_S,
                    result_bytes=RESULT_BYTES,
                    memory_limit_mb=memory,
                    name="lab-results",
                )
                if stream.stopped:
                    run.stopped_at = stream.last_progress or {"step": 0, "steps": 0}
                return run
            finally:
                proc.kill_tree()
                proc.close()

    def _start(self, cpu_seconds: int) -> SandboxProcess:
        names = (
            "experiment_harness.py",
            "harness.py",
            "messages.py",
            "job_limits.py",
            "experiment.py",
            "protocol.py",
            "seccomp.py",
        )
        binds = bind_files(*names)
        # By the venv's real path: the sandbox binds real paths only (a symlinked .venv).
        argv = [sandbox_python(), "-E", "-s", "-B", in_sandbox("experiment_harness.py")]
        limits = SandboxLimits(
            cpu_seconds=cpu_seconds + 30,  # the import of torch comes on top of the job's budget
            memory_mb=self.memory_mb,
            max_processes=self.max_processes,
            max_file_mb=16,
            max_open_files=256,
            output_bytes=64 * 1024,
            tmpfs_mb=64,
        )
        return spawn(argv, limits=limits, ro_binds=binds, env={})


def _job_args(spec: LabSpec) -> dict[str, protocol.Array | protocol.Scalar]:
    args: dict[str, protocol.Array | protocol.Scalar] = dict(spec.settings)
    args["slot"] = SLOTS.index(spec.slot)
    args["lengths"] = np.array(spec.lengths, dtype=np.int64)
    for index, tokens in enumerate(eval_sequences(spec).values()):
        args[f"eval_{index}"] = tokens
    for index, (first, second) in enumerate(probes(spec)):
        args[f"check_{index}_a"] = first
        if second is not None:
            args[f"check_{index}_b"] = second
    return args
