"""Warm pool: sandboxed interpreters that already imported their framework wait for one job each."""

from __future__ import annotations

import collections
import logging
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from graders.host.demand import Demand
from graders.host.forkserver import ForkedJob, ForkServer, ForkServerGone
from graders.host.interpreter import PoolSettings, start_interpreter
from graders.host.lane import Lane
from graders.sandbox import SandboxProcess

log = logging.getLogger(__name__)
BURST_START_S = 5.0  # about what starting and warming one more JAX server costs
GIVE_UP_AFTER = 3  # failed starts in a row after which jobs are answered at once, not queued
MAX_BACKOFF_S = 30.0
WANTED_POLL_S = 0.25  # how often a starting extra server looks whether a job still waits


Running = SandboxProcess | ForkedJob  # what acquire() hands out: one job's process
Idle = SandboxProcess | ForkServer  # what waits in the pool


def discard(proc: SandboxProcess | ForkServer) -> None:
    """Kill a used or unwanted interpreter and close its descriptors at once (not at GC)."""
    if isinstance(proc, ForkServer):
        proc.discard()
        return
    proc.kill_tree()
    proc.close()


class PoolStopped(RuntimeError):
    """The pool was stopped: no interpreter will be handed out any more."""


class PoolUnavailable(RuntimeError):
    """Interpreters of this kind failed to start several times in a row (still retried)."""


class _Stopped(Exception):
    """The pool stopped while an interpreter was starting."""


class _Unwanted(Exception):
    """An extra server's start that no job waits for any more (a burst ended meanwhile)."""


class Starter(Protocol):
    """Starts one interpreter for a pool key (`background`: no job waits for it)."""

    def __call__(self, key: str, settings: PoolSettings, *, background: bool) -> SandboxProcess: ...


class WarmPool:
    """Keeps `sizes[framework]` ready interpreters; each is used once, then replaced."""

    def __init__(
        self,
        settings: PoolSettings,
        starter: Starter = start_interpreter,
    ):
        self.settings = settings
        self._start = starter
        self._ready: dict[str, deque[Idle]] = {fw: deque() for fw in settings.sizes}
        self._cond = threading.Condition()
        self._stopped = False
        self._pending: dict[str, int] = dict.fromkeys(settings.sizes, 0)
        self._busy: collections.Counter[str] = collections.Counter()  # fork servers in use
        self._warming: collections.Counter[str] = collections.Counter()  # between two jobs
        self._waiting: collections.Counter[str] = collections.Counter()  # callers of acquire
        self._failures: collections.Counter[str] = collections.Counter()  # starts failed in a row
        self._job_s: dict[str, float] = {}  # recent job duration per key (moving average)
        self.unwanted_starts: collections.Counter[str] = collections.Counter()  # given up
        self._last_error: dict[str, list[str]] = {}
        self._stop_event = threading.Event()
        self._starting: set[SandboxProcess] = set()
        self._demand = Demand(Path(settings.demand_file) if settings.demand_file else None)
        # What the class asked for before a restart starts first, the rest in the sizes' order.
        self._order = self._demand.order(settings.sizes)
        # One background start at a time; one nobody waits for only while no job runs or waits.
        self._lane = Lane(
            lambda key: self._waiting[key] > 0, busy=self._jobs_in_hand, rank=self._rank
        )
        self._prepare: dict[str, Callable[[], None]] = {}
        self._prepared: set[str] = set()
        self._prepare_lock = threading.Lock()

    def before_first(self, framework: str, prepare: Callable[[], None]) -> None:
        """Run `prepare` once, before the first interpreter of this framework starts."""
        self._prepare[framework] = prepare

    def prepared(self, framework: str) -> None:
        """`framework`'s `before_first` work is known to be done already: skip it."""
        with self._prepare_lock:
            self._prepared.add(framework)

    def _ensure_prepared(self, key: str) -> None:
        framework = key.partition(":")[0]
        prepare = self._prepare.get(framework)
        if prepare is None or framework in self._prepared:
            return
        with self._prepare_lock:  # other spawns of any framework wait: this is rare and short
            if framework not in self._prepared:
                try:
                    prepare()
                finally:
                    self._prepared.add(framework)

    def start(self) -> None:
        """Fill the pool in the background: each key's first server in the demand's order, then
        each key's second, and so on (a second NumPy server waits behind the first JAX one)."""
        for server in range(max(self.settings.sizes.values(), default=0)):
            for place, key in enumerate(self._order):
                if self.settings.sizes[key] > server:
                    self._refill(key, rank=server * len(self._order) + place)

    def _rank(self, key: str) -> int:
        """A key's place in the start order (a key outside `sizes` last): a start's rank in
        the lane unless the fill gave it one."""
        return self._order.index(key) if key in self._order else len(self._order)

    def _refill(self, framework: str, rank: int | None = None) -> None:
        with self._cond:
            if self._stopped:
                return
            self._pending[framework] += 1
        thread = threading.Thread(
            target=self._spawn_one, args=(framework, rank), daemon=True, name=f"pool-{framework}"
        )
        thread.start()

    def _spawn_one(self, framework: str, rank: int | None = None) -> None:
        proc: SandboxProcess | None = None
        try:
            self._ensure_prepared(framework)
            queued = time.monotonic()
            with self._lane.turn(framework, rank=rank):
                if self._stopped:
                    raise _Stopped
                went = time.monotonic()
                # Nobody waits for it (a fill, a refill): it starts on spare CPU only.
                background = self._waiting[framework] == 0
                proc = self._start(framework, self.settings, background=background)
                with self._cond:
                    if self._stopped:
                        raise _Stopped
                    self._starting.add(proc)
                self._wait_ready_while_wanted(framework, proc)
            took = (went - queued, time.monotonic() - went)  # where a restart's verdicts wait
            log.info(
                "a %s server is ready: %.1f s waiting its turn, %.1f s starting", framework, *took
            )
        except Exception as exc:
            if proc is not None:
                discard(proc)
            failures = 0
            if not self._stopped and not isinstance(exc, _Stopped | _Unwanted):
                log.exception("could not start a %s interpreter", framework)
                with self._cond:
                    self._failures[framework] += 1
                    self._last_error[framework] = str(exc).strip().splitlines()[-1:] or [""]
                    failures = self._failures[framework]
                    self._cond.notify_all()  # waiters may now give up (see _wait_idle)
            # Back off (1, 2, 4 ... 30 s) while still counted as pending, so nobody spins.
            self._stop_event.wait(min(2.0 ** (failures - 1), MAX_BACKOFF_S) if failures else 0)
            with self._cond:
                self._pending[framework] -= 1
                self._starting.discard(proc)
                self._cond.notify_all()
            return
        with self._cond:
            self._failures[framework] = 0
        idle: Idle = proc
        if self._forks(framework):
            idle = ForkServer(
                proc,
                key=framework,
                max_jobs=self.settings.fork_max_jobs,
                output_bytes=self.settings.output_bytes,
            )
        with self._cond:
            self._pending[framework] -= 1
            self._starting.discard(proc)
            if not self._stopped:
                self._ready[framework].append(idle)
                self._cond.notify_all()
                return
        discard(idle)

    def _wait_ready_while_wanted(self, key: str, proc: SandboxProcess) -> None:
        """Wait for a start to be ready, giving it up once it is an extra server nobody waits for.

        Why: a JAX burst server takes seconds of CPU to warm up; when the burst that asked for it
        ends first, finishing it only to discard it took the cores from the next burst's jobs
        (NumPy right after Flax, issue 54). A start within the pool's size always finishes.
        """
        deadline = time.monotonic() + self.settings.ready_timeout_s
        poller = select.poll()
        poller.register(proc.result_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        while not poller.poll(WANTED_POLL_S * 1000):
            if time.monotonic() > deadline:
                raise TimeoutError(f"sandbox not ready within {self.settings.ready_timeout_s} s")
            with self._cond:
                if self._stopped:
                    raise _Stopped
                extra = self._live(key) > max(self.settings.sizes.get(key, 0), 1)
                if extra and self._waiting[key] == 0:
                    self.unwanted_starts[key] += 1
                    raise _Unwanted
        proc.wait_ready(max(deadline - time.monotonic(), 0.0))

    def acquire(
        self, framework: str, timeout: float | None = None, *, wall_ms: int = 60_000
    ) -> Running:
        """A process ready for one job: a fresh interpreter or a fork server's child.

        A fork server stops its child after `wall_ms`; a fresh interpreter is the caller's to time.
        """
        self._demand.note(framework)
        while True:
            idle = self._acquire_idle(framework, timeout)
            if isinstance(idle, SandboxProcess):
                if self.settings.sizes.get(framework, 0) > 0:
                    self._refill(framework)
                return idle
            try:
                job = idle.start_job(wall_ms)
            except ForkServerGone:
                log.warning("a %s fork server was gone; starting another", framework)
                self._replace(framework, idle)
                continue
            with self._cond:
                self._busy[framework] += 1
            return job

    def release(self, running: Running) -> None:
        """After the job: a fork server that cleaned up goes back once it is ready again."""
        if isinstance(running, SandboxProcess):
            discard(running)
            return
        running.close()
        server = running.server
        key = server.key
        took = time.monotonic() - running.started
        with self._cond:
            self._busy[key] -= 1
            self._job_s[key] = 0.8 * self._job_s.get(key, took) + 0.2 * took
            keep = running.reusable and server.is_alive() and not self._stopped
            if keep and self._live(key) >= max(self.settings.sizes.get(key, 0), 1):
                keep = self._waiting[key] > 0  # a burst server stays only while jobs wait
            if keep and server.poll_ready(0.0):
                self._ready[key].appendleft(server)
                self._cond.notify_all()
                return
            if keep:
                self._warming[key] += 1
        if not keep:
            if running.reusable and server.is_alive():
                discard(server)  # an extra server nobody waits for: let it go
                return
            self._replace(key, server)
            return
        threading.Thread(
            target=self._await_ready, args=(server,), daemon=True, name=f"pool-warm-{key}"
        ).start()

    def _await_ready(self, server: ForkServer) -> None:
        """Put a server back once its next child is warm (JAX), or replace it."""
        ready = server.poll_ready(self.settings.ready_timeout_s)
        with self._cond:
            self._warming[server.key] -= 1
            if ready and not self._stopped and server.is_alive():
                self._ready[server.key].append(server)
                self._cond.notify_all()
                return
        if self._stopped:
            discard(server)
        else:
            log.warning("a %s fork server did not get ready again; replacing it", server.key)
            self._replace(server.key, server)

    def _jobs_in_hand(self) -> bool:
        """A student's job runs or waits for a process (read without the lock: a hint only)."""
        return any(n > 0 for n in list(self._waiting.values()) + list(self._busy.values()))

    def _live(self, key: str) -> int:
        """Servers of this key alive now: busy, warming, ready or starting (lock held)."""
        ready = len(self._ready.get(key, ()))
        return self._busy[key] + self._warming[key] + ready + self._pending.get(key, 0)

    def _forks(self, key: str) -> bool:
        return key.partition(":")[0] in self.settings.fork

    def _replace(self, framework: str, server: ForkServer) -> None:
        discard(server)
        if self.settings.sizes.get(framework, 0) > 0:
            self._refill(framework)

    def _pop_ready(self, framework: str) -> Idle | None:
        """The first live idle interpreter; dead ones are discarded (fork servers replaced)."""
        while self._ready[framework]:
            proc = self._ready[framework].popleft()
            if proc.is_alive():
                return proc
            if isinstance(proc, ForkServer):
                self._cond.release()
                try:
                    self._replace(framework, proc)
                finally:
                    self._cond.acquire()
            else:
                discard(proc)
        return None

    def _may_start(self, framework: str) -> bool:
        """Start one more on demand? Fork servers are reused, so only below their size, or, for
        JAX, as a burst server while more jobs wait than servers are warming (lock held)."""
        size = self.settings.sizes.get(framework, 0)
        if not self._forks(framework) or size == 0:
            return True
        live = self._live(framework)
        if live < size:
            return True
        burst = self.settings.jax_burst_servers if framework.startswith("jax") else 0
        # Worth it only when the queue would take longer than starting a server (~5 s of CPU).
        backlog_s = self._waiting[framework] * self._job_s.get(framework, BURST_START_S)
        return live < size + burst and backlog_s > BURST_START_S

    def _acquire_idle(self, framework: str, timeout: float | None = None) -> Idle:
        """An idle interpreter or fork server (waits for one)."""
        # A cold start may first fill the JAX cache, then start an interpreter: allow for both.
        timeout = 2 * self.settings.ready_timeout_s if timeout is None else timeout
        if framework not in self._ready:
            self._ready[framework] = deque()
            self._pending[framework] = 0
        deadline = time.monotonic() + timeout
        with self._cond:
            self._waiting[framework] += 1
            self._lane.nudge()
            try:
                return self._wait_idle(framework, timeout, deadline)
            finally:
                self._waiting[framework] -= 1

    def _wait_idle(self, framework: str, timeout: float, deadline: float) -> Idle:
        """The waiting part of _acquire_idle (lock held)."""
        while True:
            if self._stopped:
                raise PoolStopped("the grader is shutting down")
            proc = self._pop_ready(framework)
            if proc is not None:
                return proc
            if self._failures[framework] >= GIVE_UP_AFTER:
                why = "".join(self._last_error.get(framework, [])) or "unknown error"
                raise PoolUnavailable(f"{framework} sandboxes fail to start: {why}")
            if self._pending[framework] == 0 and self._may_start(framework):
                self._cond.release()
                try:
                    self._refill(framework)
                finally:
                    self._cond.acquire()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {framework} interpreter became ready in {timeout} s")
            self._cond.wait(remaining)

    def filled(self) -> bool:
        """Every kept key has a server up (ready, busy or between jobs): no job waits a start."""
        with self._cond:
            return all(
                len(self._ready.get(key, ())) + self._busy[key] + self._warming[key] > 0
                for key, size in self.settings.sizes.items()
                if size > 0
            )

    def sizes(self) -> dict[str, int]:
        """Ready interpreters per framework (for metrics)."""
        with self._cond:
            return {fw: len(q) for fw, q in self._ready.items()}

    def stop(self) -> None:
        """Kill every waiting interpreter, and those still starting."""
        self._stop_event.set()
        with self._cond:
            self._stopped = True
            procs = [p for q in self._ready.values() for p in q] + list(self._starting)
            self._starting.clear()
            for q in self._ready.values():
                q.clear()
        for proc in procs:
            discard(proc)
