"""Glue between the web app and the grading engine: one Grader per process, built from settings."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from app.config import get_settings
from graders import Grader, Health, PoolSettings, base_env, fill_jax_cache

_lock = threading.Lock()
_grader: Grader | None = None
DEMAND_FILE = "grader-demand.json"


def pool_settings(*, warm: bool) -> PoolSettings:
    """Pool sizes and limits from the settings; `warm=False` starts interpreters on demand."""
    settings = get_settings()
    sizes = settings.pool_sizes if warm else dict.fromkeys(settings.pool_sizes, 0)
    return PoolSettings(
        sizes=sizes,
        memory_mb=settings.sandbox_memory_mb,
        fork=tuple(settings.pool_fork),
        fork_max_jobs=settings.pool_fork_max_jobs,
        jax_own_client=settings.pool_jax_own_client,
        jax_cache_dir=str(jax_cache_dir()),
        # A serving pool remembers what jobs asked for, so a restart starts those servers first.
        demand_file=str(settings.app_data_dir / DEMAND_FILE) if warm else None,
    )


def jax_cache_dir() -> Path:
    """Where JAX's compilation cache lives: set up once per checkout, not per data dir."""
    return get_settings().jax_cache_path


def prepare_jax_cache(*, exercises_dir: Path | None = None) -> float:
    """Fill the JAX compilation cache now (no-op when up to date); seconds it took."""
    exercises = exercises_dir or get_settings().exercises_dir
    return fill_jax_cache(exercises, jax_cache_dir(), base_env())


def mistakes_cache_dir() -> Path:
    """Where the declared mistakes' outputs are kept (keyed by content, shared like JAX's cache)."""
    return get_settings().mistakes_cache_path


def prepare_mistakes(*, exercises_dir: Path | None = None) -> int:
    """Compute (or load) every exercise's expected and known mistakes' outputs; how many."""
    exercises = exercises_dir or get_settings().exercises_dir
    grader = Grader(exercises, pool_settings(warm=False), mistakes_cache_dir=mistakes_cache_dir())
    return grader.prime(at_once=os.cpu_count() or 1)  # set-up: nothing else waits for the cores


def get_grader(*, warm: bool = True, health: Health | None = None, prime: bool = True) -> Grader:
    """The process-wide grader, started on first use (`health`: a probe already under way;
    `prime=False`: the caller primes it later, see `prime_in_background`)."""
    global _grader
    with _lock:
        if _grader is None:
            _grader = Grader(
                get_settings().exercises_dir,
                pool_settings(warm=warm),
                mistakes_cache_dir=mistakes_cache_dir(),
                health=health,
            )
            _grader.start()
            if warm and prime:
                prime_in_background()
        return _grader


def prime_in_background() -> None:
    """Load every exercise's expected and known mistakes' outputs on a thread, so the first
    wrong answer of each needs no extra runs.

    Why a serving process calls it once its app has started: priming holds the interpreter
    about 0.4 s (reading some 900 stored arrays, a reference run), and beside the app's
    imports it kept `/healthz` 0.4-0.8 s later after a start (issue 54). A job that comes first
    loads its own exercise's outputs, as it always could."""
    grader = _grader
    if grader is not None:
        threading.Thread(target=grader.prime, daemon=True, name="grader-prime").start()


def start_grader_early(health: Health | None = None) -> None:
    """Start the grader now, in the background, while the web app is still being imported.

    Why: importing the app takes seconds of one core; the pool's sandboxes start on the other
    (at a low priority), so a restart's first verdicts wait less (issue 54). The app's start-up
    then finds this grader (`get_grader`). `health`: the sandbox probe, begun before this
    module's imports."""
    threading.Thread(
        target=lambda: get_grader(health=health, prime=False), daemon=True, name="grader-early"
    ).start()


def current_grader() -> Grader | None:
    """The grader if one has started (metrics must not start one)."""
    return _grader


def shutdown_grader() -> None:
    """Stop the pool (at app shutdown and between tests)."""
    global _grader
    with _lock:
        if _grader is not None:
            _grader.stop()
            _grader = None


def process_grader() -> Grader:
    """The dependency behind `GraderDep`: this process's grader, started on first use.

    Synchronous, so FastAPI calls it in the thread pool: starting the pool blocks.
    """
    return get_grader()


async def running_grader() -> Grader | None:
    """The dependency behind `RunningGraderDep`: the grader if one has started, else None.

    Async: it only reads, so it costs the request no trip to the thread pool.
    """
    return _grader
