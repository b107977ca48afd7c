"""The one interface the app uses: grade this code for this exercise, framework and mode."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from graders import protocol
from graders.judge import judge_outputs, result_ids
from graders.pool import PoolSettings, WarmPool
from graders.report import Report, file_level
from graders.sandbox import SandboxProcess
from graders.spec import ExerciseSpec, SpecError, load_spec
from graders.warmup import write_warmup

Mode = Literal["submit", "run"]
MAX_CODE_BYTES = 256 * 1024
RESULT_BYTES = 64 * 1024 * 1024


class UnknownExercise(LookupError):
    """No exercise folder with that slug."""


class UnknownFramework(LookupError):
    """The exercise does not offer that framework."""


@dataclass
class RawRun:
    """What came back from one sandboxed run, before judging."""

    frames: dict[int, protocol.Result]
    ended: bool
    timed_out: bool
    exit_code: int | None
    exit_signal: int | None
    output: str
    output_truncated: bool
    max_rss_mb: float | None
    cpu_ms: float | None
    protocol_error: str | None


class Grader:
    """Grades submissions with a warm pool; safe to share between threads."""

    def __init__(self, exercises_dir: Path, pool_settings: PoolSettings) -> None:
        self.exercises_dir = exercises_dir
        if pool_settings.warmup_file is None and pool_settings.sizes.get("jax", 0) > 0:
            pool_settings = replace(pool_settings, warmup_file=write_warmup(exercises_dir))
        self.pool = WarmPool(pool_settings)
        self._specs: dict[str, ExerciseSpec] = {}
        self._mistake_outputs: dict[str, dict[str, dict[int, protocol.Result]]] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start filling the pool."""
        self.pool.start()

    def stop(self) -> None:
        """Kill every idle interpreter."""
        self.pool.stop()

    def spec(self, slug: str) -> ExerciseSpec:
        """The exercise's grading spec, loaded once."""
        with self._lock:
            if slug not in self._specs:
                folder = self.exercises_dir / slug
                if not slug or "/" in slug or slug.startswith(".") or not folder.is_dir():
                    raise UnknownExercise(slug)
                try:
                    self._specs[slug] = load_spec(folder)
                except SpecError:
                    raise
            return self._specs[slug]

    def grade(
        self, *, exercise: str, code: str, framework: str | None = None, mode: Mode = "submit"
    ) -> Report:
        """Grade one submission; every outcome is a Report, never an exception from the code."""
        started = time.perf_counter()
        spec = self.spec(exercise)
        framework = framework or spec.frameworks[0]
        if framework not in spec.frameworks:
            raise UnknownFramework(framework)
        if len(code.encode("utf-8", "surrogatepass")) > MAX_CODE_BYTES:
            return file_level(
                "invalid_submission",
                f"Your file is larger than {MAX_CODE_BYTES // 1024} KB; "
                "the solution needs only a few lines.",
                _ms(started),
            )
        cases = spec.cases if mode == "submit" else spec.visible_cases()
        run = self.run_in_sandbox(
            spec=spec, code=code, framework=framework, case_indices=[c.index for c in cases]
        )
        mistakes = self.mistake_outputs(spec) if spec.entry_kind == "function" else {}
        report = judge_outputs(spec=spec, cases=cases, run=run, mistakes=mistakes)
        report.duration_ms = _ms(started)
        return report

    def run_in_sandbox(
        self, *, spec: ExerciseSpec, code: str, framework: str, case_indices: list[int]
    ) -> RawRun:
        """Send one job to a warm interpreter and collect its frames within the time limit."""
        by_index = {c.index: c for c in spec.cases}
        cases = [by_index[i] for i in case_indices]
        job = protocol.encode_job(
            protocol.Job(
                entry_name=spec.entry_name,
                entry_kind=spec.entry_kind,
                framework=framework,
                mode="submit",
                code=code,
                cases=[protocol.JobCase(c.index, dict(c.inputs)) for c in cases],
            )
        )
        proc = self.pool.acquire(framework)
        try:
            return _exchange(
                proc, job, wanted=result_ids(spec, cases), deadline_s=spec.time_ms / 1000
            )
        finally:
            proc.kill_tree()

    def mistake_outputs(self, spec: ExerciseSpec) -> dict[str, dict[int, protocol.Result]]:
        """Outputs of each known mistake on every case, computed once by the same sandbox."""
        with self._lock:
            cached = self._mistake_outputs.get(spec.slug)
        if cached is not None:
            return cached
        outputs: dict[str, dict[int, protocol.Result]] = {}
        for mistake in spec.mistakes:
            run = self.run_in_sandbox(
                spec=spec,
                code=mistake.code,
                framework=mistake.framework,
                case_indices=[c.index for c in spec.cases],
            )
            outputs[mistake.id] = run.frames
        with self._lock:
            self._mistake_outputs[spec.slug] = outputs
        return outputs


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def _exchange(proc: SandboxProcess, job: bytes, *, wanted: list[int], deadline_s: float) -> RawRun:
    buffer = bytearray()

    def reader() -> None:
        while True:
            try:
                chunk = os.read(proc.result_fd, 65536)
            except OSError:
                return
            if not chunk or len(buffer) + len(chunk) > RESULT_BYTES:
                buffer.extend(chunk[: max(0, RESULT_BYTES - len(buffer))])
                return
            buffer.extend(chunk)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        _write_all(proc.job_fd, job)
    except OSError:
        pass  # the interpreter died early; the exit status tells why
    finally:
        os.close(proc.job_fd)
    thread.join(deadline_s)
    timed_out = thread.is_alive()
    if timed_out:
        proc.kill_tree()
        thread.join(5)
    try:
        status = proc.wait(timeout=5)
    except TimeoutError:
        proc.kill_tree()
        status = proc.wait(timeout=5)
    output, truncated = proc.output()
    usage = proc.resource_usage()
    error: str | None = None
    try:
        frames = protocol.decode_results(bytes(buffer), wanted, RESULT_BYTES)
        ended = True
    except protocol.ProtocolError as exc:
        frames, ended = dict(getattr(exc, "partial", {})), False
        if not isinstance(exc, protocol.TruncatedStream | protocol.IncompleteResults):
            error = f"Your code interfered with the grader's result channel ({exc})."
    return RawRun(
        frames=frames,
        ended=ended,
        timed_out=timed_out,
        exit_code=status.exit_code,
        exit_signal=status.signal,
        output=output.decode("utf-8", "replace"),
        output_truncated=truncated,
        max_rss_mb=usage.max_rss_mb,
        cpu_ms=usage.cpu_ms,
        protocol_error=error,
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
