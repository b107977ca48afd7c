"""The one interface the app uses: grade this code for this exercise, framework and mode."""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from graders import jobs, protocol
from graders.host import jax_cache
from graders.host.exchange import BufferSink, exchange
from graders.host.forkserver import ForkedJob
from graders.host.health import Health
from graders.host.interpreter import PoolSettings
from graders.host.pool import PoolUnavailable, WarmPool
from graders.host.warmup import encode_warmup, warmup_bundles
from graders.judging import mistake_runner
from graders.judging.judge import Mistakes, judge_outputs, result_ids
from graders.judging.sandboxed_content import class_expected
from graders.judging.spec import Case, ExerciseSpec, SpecError, load_spec
from graders.lab.experiments import Lab, Progress
from graders.lab.lab_report import grade_experiment
from graders.raw_run import RawRun
from graders.report import Report, file_level, unavailable
from graders.sandbox import base_env

log = logging.getLogger(__name__)
Mode = Literal["submit", "run"]
MAX_CODE_BYTES = 256 * 1024
JAX_TIME_FACTOR = 3  # vmap/jit code compiles each of ~10 test shapes: 0.3-0.6 s apiece here
# A job on a warmed JAX server runs what was compiled before (tens of ms), or runs again on a
# client of its own in its child (graders/inside/jax_child.py): at its first new compilation, or
# when it waits on XLA worker threads fork did not copy (noticed in 0.2 s). So it gets the job's
# whole limit there. A fresh JAX is the last resort: for a child that cannot reset
# (NEEDS_FRESH_JAX), and for one that ran out of time while using less than this share of its
# clock in CPU (a wait nothing in the child ended, not a slow or looping program).
STALLED_CPU_SHARE = 0.25
EXIT_GRACE_S = 1.0  # a finished job exits in milliseconds; this only absorbs a busy machine
SERVER_GRACE_S = 2.0  # a fork server stops its job at the deadline; the grader only after this


class UnknownExercise(LookupError):
    """No exercise folder with that slug."""


class UnknownFramework(LookupError):
    """The exercise does not offer that framework."""


class Grader:
    """Grades submissions with a warm pool; safe to share between threads."""

    def __init__(
        self,
        exercises_dir: Path,
        pool_settings: PoolSettings,
        *,
        mistakes_cache_dir: Path | None = None,
        health: Health | None = None,
    ) -> None:
        """`health`: one already probing (`Health.begin`) while this grader is built."""
        self.exercises_dir = exercises_dir
        self.mistakes_cache_dir = mistakes_cache_dir
        self._bundles: dict[str, list[dict[str, Any]]] | None = None  # for the cache's check
        if not pool_settings.warmups and pool_settings.jax_warm_up:
            bundles = self._bundles = warmup_bundles(exercises_dir, mistakes_cache_dir)
            cache_dir, env = pool_settings.jax_cache_dir, base_env()  # warm what loads a program
            warmups = {
                slug: encode_warmup(jax_cache.warm_bundle(items, cache_dir, slug, env))
                for slug, items in bundles.items()
            }
            sizes = dict(pool_settings.sizes)
            per_exercise = sizes.get("jax", 0)
            sizes.update({f"jax:{slug}": per_exercise for slug in warmups})
            # "jax" stays: the safe servers a job goes to when it needs a new compilation.
            pool_settings = replace(pool_settings, sizes=sizes, warmups=warmups)
        self.pool = WarmPool(pool_settings)
        # Experiments get their own sandboxes and lane: they never hold a pool interpreter.
        self.lab = Lab(
            slots=pool_settings.experiment_slots,
            memory_mb=pool_settings.memory_mb,
            max_processes=pool_settings.max_processes,
        )
        self.pool.before_first("jax", self._fill_jax_cache)
        self.health = health or Health()
        self._pool_started = False
        self._specs: dict[str, ExerciseSpec] = {}
        self._mistake_outputs: dict[str, dict[str, dict[int, protocol.Result]]] = {}
        self._mistake_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        """Check that sandboxes start here, then fill the pool (in the background)."""
        self.health.start(self._start_pool)

    def _start_pool(self) -> None:
        with self._lock:
            if self._pool_started:
                return
            self._pool_started = True
        cache_dir = self.pool.settings.jax_cache_dir
        bundles = self._bundles
        if cache_dir and jax_cache.current(
            self.exercises_dir, Path(cache_dir), base_env(), bundles
        ):
            # Nothing to fill: JAX starts take their place in the fill's order at once, rather
            # than after the check while a torch start takes the lane (seconds, issue 54).
            self.pool.prepared("jax")
        self.pool.start()

    def status(self) -> str:
        """ "ready", "starting" or "unavailable: <why>" (for /healthz and instructors)."""
        return self.health.status()

    def _fill_jax_cache(self) -> None:
        cache_dir = self.pool.settings.jax_cache_dir
        if not cache_dir:
            return
        try:
            seconds = jax_cache.fill(self.exercises_dir, Path(cache_dir), base_env())
            log.info("JAX compilation cache ready in %.1f s", seconds)
        except Exception:  # JAX still works without the cache, only slower
            log.exception("could not fill the JAX compilation cache")

    def stop(self) -> None:
        """Kill every idle interpreter."""
        self.health.stop()
        self.pool.stop()

    def _key(self, slug: str, exercises_dir: Path | None) -> str:
        """Cache key: the slug in the grader's own folder, else the folder too (another course)."""
        if exercises_dir is None or exercises_dir == self.exercises_dir:
            return slug
        return f"{exercises_dir}/{slug}"

    def forget(self, slug: str, exercises_dir: Path | None = None) -> None:
        """Re-read this exercise's tests and known mistakes on next use (its files changed)."""
        key = self._key(slug, exercises_dir)
        with self._lock:
            self._specs.pop(key, None)
            self._mistake_outputs.pop(key, None)

    def spec(self, slug: str, exercises_dir: Path | None = None) -> ExerciseSpec:
        """The exercise's grading spec, loaded once; `exercises_dir` names another course's."""
        key = self._key(slug, exercises_dir)
        with self._lock:
            if key not in self._specs:
                folder = (exercises_dir or self.exercises_dir) / slug
                if not slug or "/" in slug or slug.startswith(".") or not folder.is_dir():
                    raise UnknownExercise(slug)
                spec = load_spec(folder, self.mistakes_cache_dir)
                self._specs[key] = spec
            return self._specs[key]

    def check(
        self, *, exercise: str, framework: str | None = None, exercises_dir: Path | None = None
    ) -> ExerciseSpec:
        """The exercise's spec; raises UnknownExercise or UnknownFramework."""
        spec = self.spec(exercise, exercises_dir)
        if (framework or spec.frameworks[0]) not in spec.frameworks:
            raise UnknownFramework(framework)
        return spec

    def grade(
        self,
        *,
        exercise: str,
        code: str,
        framework: str | None = None,
        mode: Mode = "submit",
        progress: Progress | None = None,
        exercises_dir: Path | None = None,
    ) -> Report:
        """Grade one submission; every outcome is a Report, never an exception from the code.

        `progress` hears {step, steps, loss} while an experiment trains (other kinds never call it).
        `exercises_dir` grades an exercise of another course (default: the grader's folder).
        """
        started = time.perf_counter()
        try:
            spec = self.spec(exercise, exercises_dir)
        except SpecError:  # cases.py runs in a sandbox: none may start here at all
            why = self.health.blocked()
            if why is not None:
                return unavailable(why, _ms(started))
            raise
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
        if spec.entry_kind == "experiment":
            report = self._experiment(spec, code, progress)
            report.duration_ms = _ms(started)
            return report
        cases = spec.cases if mode == "submit" else spec.visible_cases()
        why = self.health.blocked()
        if why is None:
            self._start_pool()  # a grader used without start() (the CLI) starts it on demand
            try:
                run = self.run_in_sandbox(
                    spec=spec, code=code, framework=framework, case_indices=[c.index for c in cases]
                )
            except PoolUnavailable as exc:
                why = str(exc)
        if why is not None:
            return unavailable(why, _ms(started))
        # Known mistakes are run only when a test fails and their outputs are needed.
        report = judge_outputs(
            spec=spec, cases=cases, run=run, mistakes=functools.cache(lambda: self._mistakes(spec))
        )
        report.duration_ms = _ms(started)
        report.new_compilation = run.new_compilation
        return report

    def _experiment(self, spec: ExerciseSpec, code: str, progress: Progress | None) -> Report:
        """Train the exercise's model with this code in a sandbox of its own, judge the goals."""
        why = self.health.blocked()
        if why is not None:
            return unavailable(why, 0.0)
        return grade_experiment(self.lab, spec, code, progress)

    def run_in_sandbox(
        self, *, spec: ExerciseSpec, code: str, framework: str, case_indices: list[int]
    ) -> RawRun:
        """Send one job to a warm interpreter and collect its frames within the time limit."""
        by_index = {c.index: c for c in spec.cases}
        cases = [by_index[i] for i in case_indices]
        deadline_ms = time_limit_ms(spec, framework)
        memory_mb = min(spec.memory_mb, self.pool.settings.memory_mb)
        job = jobs.encode_job(
            protocol.Job(
                entry_name=spec.entry_name,
                entry_kind=spec.entry_kind,
                framework=framework,
                mode="submit",
                code=code,
                cases=[protocol.JobCase(c.index, dict(c.inputs)) for c in cases],
                memory_mb=memory_mb,
                cpu_seconds=job_cpu_seconds(deadline_ms),
            )
        )
        per_exercise = (
            framework == "jax"
            and spec.slug in self.pool.settings.warmups
            and spec.folder.parent == self.exercises_dir  # warmed for this folder's exercise
        )
        key = f"jax:{spec.slug}" if per_exercise else framework
        fast = per_exercise and "jax" in self.pool.settings.fork
        run = self._attempt(key, job, spec, cases, deadline_ms, memory_mb)
        fresh = run.exit_code == protocol.NEEDS_FRESH_JAX
        compiled = fresh or run.exit_code == protocol.RAN_AFTER_RESET
        # Whether it needed a new compilation; unknown when it ran out of time before telling.
        new_compilation = compiled or (None if run.timed_out else False)
        if fast and (fresh or _stalled(run, deadline_ms)):
            # The warmed server's child could not reset, or it waited without working until its
            # clock ran out: run it where JAX starts fresh, with the job's whole limit.
            run = self._attempt("jax", job, spec, cases, deadline_ms, memory_mb)
        if fast:
            run.new_compilation = new_compilation
        return run

    def _attempt(
        self,
        key: str,
        job: bytes,
        spec: ExerciseSpec,
        cases: list[Case],
        deadline_ms: int,
        memory_mb: int,
    ) -> RawRun:
        """One run of the job on a process of `key`."""
        proc = self.pool.acquire(key, wall_ms=deadline_ms)
        try:
            return exchange(
                proc,
                job,
                BufferSink(result_ids(spec, cases)),
                deadline_s=deadline_ms / 1000,
                exit_grace_s=EXIT_GRACE_S,
                result_bytes=protocol.RESULT_BYTES,
                server_grace_s=SERVER_GRACE_S if isinstance(proc, ForkedJob) else 0.0,
                memory_limit_mb=memory_mb,
            )
        finally:
            self.pool.release(proc)

    def _mistakes(self, spec: ExerciseSpec) -> Mistakes:
        """Known mistakes' outputs; if they cannot be had now, the verdict stands without hints."""
        try:
            return self.mistake_outputs(spec)
        except Exception:
            log.warning("known mistakes of %s unavailable; no hints this time", spec.slug)
            return {}

    def prime(self, *, at_once: int = 1) -> int:
        """Load (or compute) every exercise's expected and known mistakes' outputs, outside the
        pool, so no student's first job waits for a framework to start in a content sandbox.

        `at_once` exercises side by side: `prepare` uses every core; a serving process one."""
        folders = sorted(p for p in self.exercises_dir.iterdir() if p.is_dir())
        if at_once <= 1:
            return sum(self._prime_one(folder) for folder in folders)
        with ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="prime") as pool:
            return sum(pool.map(self._prime_one, folders))

    def _prime_one(self, folder: Path) -> int:
        """1 when this exercise's outputs are ready, 0 for an experiment or a broken one."""
        try:
            spec = self.spec(folder.name)
            if spec.entry_kind == "experiment":
                return 0  # no known mistakes to run: its goals are judged on measurements
            if spec.entry_kind == "function":
                spec.expected()
            else:  # its reference on the tables its cases bring (a sandbox run), ahead
                class_expected(spec, spec.cases, None)
            self.mistake_outputs(spec, background=True)
            return 1
        except Exception:  # a broken exercise is reported by validate
            log.warning("could not run the known mistakes of %s", folder.name, exc_info=True)
            return 0

    def mistake_outputs(
        self, spec: ExerciseSpec, *, background: bool = False
    ) -> dict[str, dict[int, protocol.Result]]:
        """Outputs of each known mistake on every case, from a content sandbox or the disk cache.

        Never through the sandbox pool (students' jobs do not wait behind them;
        graders/judging/mistake_runner.py), except a mistake whose code a student wrote
        (`sandboxed`): that runs in the sandbox like any submission. One computation per
        exercise at a time.
        """
        key = self._key(spec.slug, spec.folder.parent)
        with self._lock:
            cached = self._mistake_outputs.get(key)
            lock = self._mistake_locks.setdefault(key, threading.Lock())
        if cached is not None:
            return cached
        with lock:
            with self._lock:
                cached = self._mistake_outputs.get(key)
            if cached is not None:
                return cached
            outputs = mistake_runner.load_or_compute(
                spec, self.mistakes_cache_dir, background=background
            )
            outputs = {**outputs, **self._sandboxed_outputs(spec)}
            with self._lock:
                self._mistake_outputs[key] = outputs
            return outputs

    def _sandboxed_outputs(self, spec: ExerciseSpec) -> dict[str, dict[int, protocol.Result]]:
        """Mistakes whose code came from a student, run in the sandbox (kept in memory)."""
        found: dict[str, dict[int, protocol.Result]] = {}
        wanted = set(result_ids(spec, spec.cases))
        for mistake in (m for m in spec.mistakes if m.sandboxed):
            self._start_pool()
            run = self.run_in_sandbox(
                spec=spec,
                code=mistake.code,
                framework=mistake.framework,
                case_indices=[c.index for c in spec.cases],
            )
            found[mistake.id] = {i: out for i, out in run.frames.items() if i in wanted}
        return found


def time_limit_ms(spec: ExerciseSpec, framework: str) -> int:
    """The wall-clock limit of one job: JAX compiles every new shape on first use, so more."""
    return spec.time_ms * (JAX_TIME_FACTOR if framework == "jax" else 1)


def _stalled(run: RawRun, deadline_ms: int) -> bool:
    """Ran out of time while barely using CPU: a wait nothing in the warmed child could end."""
    return run.timed_out and run.cpu_ms is not None and run.cpu_ms < STALLED_CPU_SHARE * deadline_ms


def job_cpu_seconds(deadline_ms: int) -> int:
    """CPU budget of one job: its threads may use both cores for the whole wall-clock limit."""
    return 2 * math.ceil(deadline_ms / 1000) + 1


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
