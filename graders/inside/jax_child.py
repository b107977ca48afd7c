"""Runs INSIDE the sandbox: a child forked from a warmed JAX server compiles on a client of its own.

Why: after fork, a compilation (or a load from the persistent cache) is queued to the compiler
thread pool of the server's JAX client, whose threads fork did not copy, so it would wait
forever. Re-running what the server compiled works. So a job first runs against the server's
client with every frame and print held back; at its first new compilation that attempt is
abandoned (its frames and prints are dropped), the child drops JAX's backends and caches, builds a
client and an MLIR thread pool of its own (keeping the server's client referenced, never
destroyed: the process leaves with os._exit) and runs the whole job again from its source.

Measured conditions (docs/jax-fork-reset.md): the server must never have compiled natively (it
fills its caches from the persistent cache only; `count_native_compiles` checks), and it forks
from idle (`settle`). If the server did compile, a child that needs a compilation exits with
NEEDS_FRESH_JAX and the grader runs the job in a fresh JAX process, as before.

Every child first gets an MLIR thread pool of its own (`own_mlir_pool`): the server's pool
started its workers while warm-up lowered programs of several functions, and MLIR verifies such
a program on that pool; in the child the workers are gone, so a new program of several functions
waited forever (about one student program in eight hung until its time limit).

Running what the server compiled can stall too: XLA's CPU client hands some work to its own
worker threads (a program of independent kernels over buffers past 512 bytes, e.g. the jitted
`jax.random.truncated_normal`; a copy of 100 kB or more into a JAX array) and waits for them; fork
did not copy them either. Which work goes there is decided inside XLA, with no option to keep it
on the calling thread, so a watch (`_StallWatch`) notices the wait instead: the job's thread
asleep in a futex, no thread of the child using CPU, for STALL_S. Nothing can wake it, so the
watch takes the job over: it drops the attempt's frames and prints and runs the job again on a
client of its own, in its own thread (the stuck one is left parked; the process leaves with
os._exit).

Safety is unchanged: the reset happens inside the one job's child, after its limits and seccomp
filter are in place and under the same wall clock; the child never runs another job; the
persistent cache stays a read-only bind that JAX is also told never to write.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import protocol  # type: ignore[import-not-found]  # bound beside this file in the sandbox

SETTLE_S = 0.1  # a fork right after JAX work once left the child spinning in absl's set-up
HELD_OUTPUT_CHARS = 256 * 1024  # prints held during the first attempt (the grader keeps less)
STALL_POLL_S = 0.02
# A futex wait this long while no thread of the child uses CPU will not end: the threads that
# would end it are ones fork did not copy. A thread that is merely descheduled is not asleep.
STALL_S = 0.2
STALL_CPU_S = 0.001  # CPU the child's other threads may use meanwhile (not the watch's own)
WARM_UP_NICE = 10  # added to the server's nice value while it warms: pages and jobs come first
NATIVE_COMPILES = [0]  # in the server: compilations that did not come from the persistent cache
_KEPT: list[Any] = []  # the server's clients: destroying them in the child is not safe


class CompileMiss(BaseException):
    """The first attempt needs a compilation the server did not do (BaseException: student
    `except Exception` blocks do not swallow it; the `missed` flag catches the rest)."""


def watch_server() -> None:
    """In the server, before JAX's backend starts: count real compilations (cache loads are not
    counted), and keep every MLIR context alive (a reset that let JAX's caches destroy the
    server's contexts would spend 2-3 ms on each; hundreds of them after warm-up)."""
    from jax._src import compiler
    from jax._src.interpreters import mlir

    compile_and_load = compiler.backend_compile_and_load
    make_context = mlir.make_ir_context

    def counting(*args: Any, **kwargs: Any) -> Any:
        NATIVE_COMPILES[0] += 1
        return compile_and_load(*args, **kwargs)

    def kept_context() -> Any:
        context = make_context()
        _KEPT.append(context)
        return context

    compiler.backend_compile_and_load = counting
    mlir.make_ir_context = kept_context


@contextlib.contextmanager
def one_mlir_context_while_warming() -> Iterator[None]:
    """In the server: lower every program of its warm-up in one MLIR context, kept for good.

    Why: a new context per program loads every dialect again, about 4 of the ~17 ms each
    program the cache serves costs; the Flax exercise's warm-up lowers 48 (770-810 -> 570-595
    ms of a restart's critical path, issue 54). Afterwards each program gets its own context
    again: a forked job's must be made on the job's own MLIR thread pool (`own_mlir_pool`).
    """
    from jax._src.interpreters import mlir

    per_program = mlir.make_ir_context  # `watch_server`'s: what it makes is kept alive
    context = per_program()
    mlir.make_ir_context = lambda: context
    try:
        yield
    finally:
        mlir.make_ir_context = per_program


def own_mlir_pool() -> None:
    """In a forked child, before any lowering: an MLIR thread pool whose workers exist here.

    The server's pool is kept referenced, never destroyed (its destructor would wait for workers
    that fork did not copy); new workers start in this child when a lowering needs them.
    """
    from jax._src.interpreters import mlir

    ir: Any = getattr(mlir, "ir")  # noqa: B009 - not re-exported for type checkers

    _KEPT.append(mlir.global_thread_pool)
    mlir.global_thread_pool = ir.ThreadPool()


def forget_traces() -> None:
    """In the server after its warm-up: drop what jax.jit's tracing kept (`_infer_params_cached`).

    A child that resets would otherwise destroy it first: about 50 ms for a Flax exercise's
    warm-up, most of the reset (measured: 49 of 57 ms for clearing every cache). A child's first
    attempt does not need it: the programs the warm-up ran are found in JAX's C++ dispatch caches
    before any tracing (checked over every corpus file and declared mistake of the gather, Flax,
    RoPE, ALiBi and sinusoidal exercises: the same ones run without a new compilation).
    """
    from jax._src import pjit

    traces = getattr(pjit, "_infer_params_cached", None)  # another JAX: nothing to forget
    if traces is not None:
        traces.cache_clear()


def warm_up_in_the_background(work: Callable[[], None]) -> None:
    """Run the server's start (import, backend, warm-up) on a thread of lower priority, and wait.

    Why: right after a start the warm-ups of every JAX exercise competed with a class's pages
    (issue 23) and students' jobs. Linux keeps a nice value per thread, and the threads XLA
    starts inherit it from their creator; jobs are forked later from the main thread, which
    keeps its own. An unprivileged server could not lower the value again for a job.
    """
    failed: list[BaseException] = []

    def run() -> None:
        me = threading.get_native_id()
        try:
            os.setpriority(os.PRIO_PROCESS, me, os.getpriority(os.PRIO_PROCESS, me) + WARM_UP_NICE)
            work()
        except BaseException as exc:  # raised again in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="warm-up")
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


def settle() -> None:
    """Let the server's threads go idle before its first fork."""
    time.sleep(SETTLE_S)


class Guard:
    """In a forked child: a new compilation becomes a CompileMiss (or NEEDS_FRESH_JAX)."""

    def __init__(self, may_reset: bool) -> None:
        from jax._src import compiler

        self.may_reset = may_reset
        self.missed = False
        self._compiler = compiler
        self._original = compiler.compile_or_get_cached
        compiler.compile_or_get_cached = self._refuse

    def _refuse(self, *_args: Any, **_kwargs: Any) -> Any:
        if not self.may_reset:
            _leave_for_fresh_jax()
        self.missed = True
        raise CompileMiss("this job needs a compilation: it is run again on a client of its own")

    def reset(self) -> None:
        """Give this process a JAX client of its own; compiling works from here on (the MLIR
        thread pool is already the child's own: `own_mlir_pool`)."""
        from jax._src import api, xla_bridge

        _KEPT.append(dict(xla_bridge._backends))
        # The server's compiled programs stay referenced too: destroying them when JAX's caches
        # let go cost 40-50 ms of a Flax job's reset, and nothing needs them freed here.
        _KEPT.append(_live_programs(xla_bridge._backends.values()))
        api.clear_backends()  # type: ignore[no-untyped-call]
        self._compiler.compile_or_get_cached = self._original


def _live_programs(clients: Any) -> list[Any]:
    """Every program loaded on these clients (none if this jaxlib cannot list them)."""
    try:
        return [program for client in clients for program in client.live_executables()]
    except (AttributeError, RuntimeError):
        return []


class _Held:
    """What the first attempt printed, kept until it is known to count."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.live: int | None = None  # a thread whose prints go straight out (the watch's re-run)


class _HeldOutput(io.TextIOBase):
    """sys.stdout or sys.stderr during the first attempt: kept, written out only if it counts."""

    def __init__(self, held: _Held, real: Any) -> None:
        self.held = held
        self.real = real

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        held = self.held
        if held.live is not None:
            if threading.get_ident() == held.live:
                return int(self.real.write(text))
            return len(text)  # the parked first attempt: dropped
        if held.size < HELD_OUTPUT_CHARS:
            held.parts.append(text[: HELD_OUTPUT_CHARS - held.size])
            held.size += len(held.parts[-1])
        return len(text)

    def flush(self) -> None:
        if self.held.live is not None and threading.get_ident() == self.held.live:
            self.real.flush()


def _waits_in_futex(tid: int) -> bool:
    """Whether thread `tid` of this process sleeps in a futex (False when /proc cannot tell)."""
    try:
        with open(f"/proc/self/task/{tid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/self/task/{tid}/wchan") as wchan:
            return state == "S" and wchan.read().startswith("futex")
    except (OSError, IndexError):
        return False


class _StallWatch:
    """In a forked child: notices the job's thread waiting for threads fork did not copy.

    `take_over` then runs in the watch's thread (the job's thread never wakes); `finish`, called
    by the job's thread when its attempt ends, says whether the attempt still counts.
    """

    def __init__(self, take_over: Callable[[], None]) -> None:
        self.job_thread = threading.get_native_id()
        self.state = "watching"
        self.lock = threading.Lock()
        self.take_over = take_over
        threading.Thread(target=self._watch, name="stall-watch", daemon=True).start()

    def finish(self) -> bool:
        """True if the attempt counts; False if the watch took the job over."""
        with self.lock:
            if self.state == "watching":
                self.state = "done"
        return self.state == "done"

    def _watch(self) -> None:
        since: float | None = None
        cpu_then = 0.0
        while self.state == "watching":
            time.sleep(STALL_POLL_S)
            now = time.monotonic()
            cpu = time.process_time() - time.thread_time()
            if not _waits_in_futex(self.job_thread):
                since = None
            elif since is None or cpu - cpu_then > STALL_CPU_S:
                since, cpu_then = now, cpu
            elif now - since >= STALL_S:
                with self.lock:
                    if self.state != "watching":
                        return
                    self.state = "taken over"
                self.take_over()
                return

    @staticmethod
    def park() -> None:
        """The job's thread after the watch took its job over: wait for the process to end."""
        threading.Event().wait()


def _leave_for_fresh_jax() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(protocol.NEEDS_FRESH_JAX)


RunJob = Callable[..., None]


def run(run_job: RunJob, job: Any, write: Callable[[bytes], None], *, may_reset: bool) -> bool:
    """Run the job on the server's client; at a compile miss or a stall, reset and run it again.

    True when it ran again on a client of its own (the caller exits with RAN_AFTER_RESET); after
    a stall the watch's thread runs it again and ends the process itself.
    """
    own_mlir_pool()
    guard = Guard(may_reset)
    if not may_reset:
        watch = _StallWatch(_leave_for_fresh_jax)
        run_job(job, write)
        if not watch.finish():
            watch.park()
        return False
    frames: list[bytes] = []
    held = _Held()
    saved = sys.stdout, sys.stderr

    def take_over() -> None:  # in the watch's thread; the job's thread is stuck for good
        guard.missed = True
        frames.clear()
        held.parts.clear()
        held.live = threading.get_ident()
        _run_again(guard, run_job, job, write)
        for stream in saved:
            stream.flush()
        os._exit(protocol.RAN_AFTER_RESET)  # every result is written; this only counts it

    watch = _StallWatch(take_over)
    sys.stdout, sys.stderr = _HeldOutput(held, saved[0]), _HeldOutput(held, saved[1])
    try:
        run_job(job, frames.append, stop=lambda: guard.missed)
    except CompileMiss:
        guard.missed = True
    finally:
        if not watch.finish():
            watch.park()
        sys.stdout, sys.stderr = saved
    if not guard.missed:
        sys.stdout.write("".join(held.parts))
        for frame in frames:
            write(frame)
        return False
    frames.clear()
    held.parts.clear()
    _run_again(guard, run_job, job, write)
    return True


def _run_again(guard: Guard, run_job: RunJob, job: Any, write: Callable[[bytes], None]) -> None:
    """The whole job again, on a JAX client of this process's own."""
    try:
        guard.reset()
    except Exception:  # no client of its own: the grader runs the job on a fresh JAX
        _leave_for_fresh_jax()
    import whole_programs  # type: ignore[import-not-found]  # bound beside this file

    whole_programs.cheap_compiles()
    one_mlir_context()
    run_job(job, write, call=whole_programs.WholePrograms)


def one_mlir_context() -> None:
    """Lower every program of the run again in one MLIR context instead of a new one each.

    JAX makes a context per program (about 2.5 ms: every dialect loaded), so that a long-lived
    process can free what each program's types and attributes took; this child runs one job
    and exits. A Flax job lowers about sixty programs again after a reset. The context is made
    here, after the reset, on this child's own MLIR thread pool (`own_mlir_pool`), with MLIR's
    multi-threading on, as JAX's own contexts have it (programs compile on other threads).
    """
    from jax._src.interpreters import mlir

    context = mlir.make_ir_context()
    mlir.make_ir_context = lambda: context
