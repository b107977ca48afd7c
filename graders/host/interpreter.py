"""The pool's settings, and how one of its sandboxed interpreters starts from them (pool.py)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from graders.host.binds import bind_files, in_sandbox
from graders.host.jax_cache import SANDBOX_CACHE_DIR, exercise_part
from graders.sandbox import SandboxLimits, SandboxProcess, sandbox_python, spawn

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
    # Filled by graders.host.jax_cache; a `jax:<slug>` sandbox binds its exercise's part of it
    # read-only, a plain `jax` one none of it.
    jax_cache_dir: str | None = None
    # Frameworks served by fork servers (graders/inside/zygote.py). NumPy and torch fork once
    # imported; a JAX server forks before its backend starts and keeps a warm child ready for
    # each job.
    fork: tuple[str, ...] = ("numpy", "torch", "jax")
    fork_max_jobs: int = 500  # a fork server is replaced after this many jobs
    # Extra JAX servers a key may start while jobs wait and every server is busy or warming
    # (its next child warms up for about a second); they go again once nobody waits.
    jax_burst_servers: int = 2
    # A `jax:<slug>` server forks before its backend starts, like a plain `jax` one, and each
    # child starts a client of its own and warms up on the exercise ahead of its job, so a
    # never-seen program compiles there natively, with no reset. A prototype, off: each job
    # then waits for its child's warm-up after the previous job (docs/jax-fork-reset.md).
    jax_own_client: bool = False
    # Experiments (graders/experiments.py) running at once, each in a sandbox of its own.
    experiment_slots: int = 1
    # Where the pool remembers which keys jobs asked for, so a restart starts those first
    # (graders/host/demand.py); None: the keys start in the order of `sizes`.
    demand_file: str | None = None


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


def start_interpreter(
    key: str, settings: PoolSettings, *, background: bool = False
) -> SandboxProcess:
    """Spawn one sandboxed harness; it imports, warms up and then waits for its job.

    `key` is a framework, or `jax:<exercise slug>` for a JAX server warmed for one exercise
    (it forks each job after warm-up). A plain `jax` fork server is the safe kind: it forks
    before JAX starts, and each child warms up ahead of its job (graders/inside/harness.py).
    `background`: no job waits for this start, so a fork server starts on spare CPU only.
    """
    framework, _, slug = key.partition(":")
    forks = framework in settings.fork
    argv = [sandbox_python(), "-E", "-s", "-B", in_sandbox("harness.py"), framework]
    binds = bind_files("harness.py", "messages.py", "job_limits.py", "protocol.py", "seccomp.py")
    if forks:
        own_client = not slug or settings.jax_own_client
        argv.append("prewarm" if framework == "jax" and own_client else "fork")
        if background:
            argv.append("background")
        binds += bind_files("zygote.py", "inherited.py", "cleaner.py")
    if framework == "jax":  # resets after a fork; one program per case where that is cheaper
        binds += bind_files("jax_child.py", "whole_programs.py")
    if framework == "jax" and slug and settings.jax_cache_dir:  # its own exercise's part only
        part = exercise_part(settings.jax_cache_dir, slug)
        if part.is_dir():
            binds.append((str(part), SANDBOX_CACHE_DIR))
    proc = spawn(argv, limits=_limits(settings), ro_binds=binds, env={}, control_socket=forks)
    warmup = settings.warmups.get(slug, NO_WARMUP) if framework == "jax" else NO_WARMUP
    with contextlib.suppress(OSError):  # if it died while starting, wait_ready says so
        _write_all(proc.job_fd, warmup)  # the harness reads this frame before it says READY
    return proc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
