"""Warm pool: sandboxed interpreters that already imported their framework wait for one job each."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from graders.jax_cache import SANDBOX_CACHE_DIR
from graders.sandbox import SandboxLimits, SandboxProcess, spawn

log = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent
SANDBOX_GRADERS = "/grader"
NO_WARMUP = b"\0\0\0\0"  # an empty warm-up frame


@dataclass(frozen=True)
class PoolSettings:
    """Sizes and limits of the pool; the web app fills these from its settings."""

    sizes: dict[str, int]
    memory_mb: int = 2048
    cpu_seconds: int = 60
    max_processes: int = 64
    output_bytes: int = 64 * 1024
    ready_timeout_s: float = 60.0
    warmups: dict[str, bytes] = field(default_factory=dict)  # slug -> encode_warmup() frame
    jax_warm_up: bool = True  # False: plain JAX interpreters (the benchmark's fresh baseline)
    jax_cache_dir: str | None = None  # filled by graders.jax_cache; bound read-only into JAX


def _limits(settings: PoolSettings) -> SandboxLimits:
    return SandboxLimits(
        cpu_seconds=settings.cpu_seconds,
        memory_mb=settings.memory_mb,
        max_processes=settings.max_processes,
        max_file_mb=16,
        max_open_files=256,
        output_bytes=settings.output_bytes,
        tmpfs_mb=64,
    )


def start_interpreter(key: str, settings: PoolSettings) -> SandboxProcess:
    """Spawn one sandboxed harness; it imports, warms up and then waits for its job.

    `key` is a framework, or `jax:<exercise slug>` for a JAX interpreter warmed for one exercise.
    """
    framework, _, slug = key.partition(":")
    argv = [sys.executable, "-E", "-s", "-B", f"{SANDBOX_GRADERS}/harness.py", framework]
    binds = [
        (str(HERE / "harness.py"), f"{SANDBOX_GRADERS}/harness.py"),
        (str(HERE / "protocol.py"), f"{SANDBOX_GRADERS}/protocol.py"),
    ]
    if framework == "jax" and settings.jax_cache_dir:
        binds.append((settings.jax_cache_dir, SANDBOX_CACHE_DIR))
    proc = spawn(argv, limits=_limits(settings), ro_binds=binds, env={})
    warmup = settings.warmups.get(slug, NO_WARMUP) if framework == "jax" else NO_WARMUP
    with contextlib.suppress(OSError):  # if it died while starting, wait_ready says so
        _write_all(proc.job_fd, warmup)  # the harness reads this frame before it says READY
    return proc


def discard(proc: SandboxProcess) -> None:
    """Kill a used or unwanted interpreter and close its descriptors at once (not at GC)."""
    proc.kill_tree()
    proc.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class PoolStopped(RuntimeError):
    """The pool was stopped: no interpreter will be handed out any more."""


class _Stopped(Exception):
    """The pool stopped while an interpreter was starting."""


class WarmPool:
    """Keeps `sizes[framework]` ready interpreters; each is used once, then replaced."""

    def __init__(
        self,
        settings: PoolSettings,
        starter: Callable[[str, PoolSettings], SandboxProcess] = start_interpreter,
    ):
        self.settings = settings
        self._start = starter
        self._ready: dict[str, deque[SandboxProcess]] = {fw: deque() for fw in settings.sizes}
        self._cond = threading.Condition()
        self._stopped = False
        self._pending: dict[str, int] = dict.fromkeys(settings.sizes, 0)
        self._starting: set[SandboxProcess] = set()
        self._prepare: dict[str, Callable[[], None]] = {}
        self._prepared: set[str] = set()
        self._prepare_lock = threading.Lock()

    def before_first(self, framework: str, prepare: Callable[[], None]) -> None:
        """Run `prepare` once, before the first interpreter of this framework starts."""
        self._prepare[framework] = prepare

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
        """Fill the pool in the background."""
        for framework, size in self.settings.sizes.items():
            for _ in range(size):
                self._refill(framework)

    def _refill(self, framework: str) -> None:
        with self._cond:
            if self._stopped:
                return
            self._pending[framework] += 1
        thread = threading.Thread(
            target=self._spawn_one, args=(framework,), daemon=True, name=f"pool-{framework}"
        )
        thread.start()

    def _spawn_one(self, framework: str) -> None:
        proc: SandboxProcess | None = None
        try:
            self._ensure_prepared(framework)
            proc = self._start(framework, self.settings)
            with self._cond:
                if self._stopped:
                    raise _Stopped
                self._starting.add(proc)
            proc.wait_ready(self.settings.ready_timeout_s)
        except Exception as exc:
            if not self._stopped and not isinstance(exc, _Stopped):
                log.exception("could not start a %s interpreter", framework)
            with self._cond:
                self._pending[framework] -= 1
                self._starting.discard(proc)
            if proc is not None:
                discard(proc)
            if not self._stopped:
                time.sleep(1.0)
            return
        with self._cond:
            self._pending[framework] -= 1
            self._starting.discard(proc)
            if not self._stopped:
                self._ready[framework].append(proc)
                self._cond.notify_all()
                return
        discard(proc)

    def acquire(self, framework: str, timeout: float | None = None) -> SandboxProcess:
        """A ready interpreter (waits for one); a replacement starts at once."""
        # A cold start may first fill the JAX cache, then start an interpreter: allow for both.
        timeout = 2 * self.settings.ready_timeout_s if timeout is None else timeout
        if framework not in self._ready:
            self._ready[framework] = deque()
            self._pending[framework] = 0
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if self._stopped:
                    raise PoolStopped("the grader is shutting down")
                while self._ready[framework]:
                    proc = self._ready[framework].popleft()
                    if proc.is_alive():
                        break
                    discard(proc)
                else:
                    proc = None
                if proc is not None:
                    break
                if self._pending[framework] == 0:
                    self._cond.release()
                    try:
                        self._refill(framework)
                    finally:
                        self._cond.acquire()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no {framework} interpreter became ready in {timeout} s")
                self._cond.wait(remaining)
        if self.settings.sizes.get(framework, 0) > 0:
            self._refill(framework)
        return proc

    def sizes(self) -> dict[str, int]:
        """Ready interpreters per framework (for metrics)."""
        with self._cond:
            return {fw: len(q) for fw, q in self._ready.items()}

    def stop(self) -> None:
        """Kill every waiting interpreter, and those still starting."""
        with self._cond:
            self._stopped = True
            procs = [p for q in self._ready.values() for p in q] + list(self._starting)
            self._starting.clear()
            for q in self._ready.values():
                q.clear()
        for proc in procs:
            discard(proc)
