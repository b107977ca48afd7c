"""Glue between the web app and the grading engine: one Grader per process, built from settings."""

from __future__ import annotations

import threading

from app.config import get_settings
from graders.engine import Grader
from graders.pool import PoolSettings

_lock = threading.Lock()
_grader: Grader | None = None


def pool_settings(*, warm: bool) -> PoolSettings:
    """Pool sizes and limits from the settings; `warm=False` starts interpreters on demand."""
    settings = get_settings()
    sizes = settings.pool_sizes if warm else dict.fromkeys(settings.pool_sizes, 0)
    return PoolSettings(
        sizes=sizes,
        memory_mb=settings.sandbox_memory_mb,
        fork=tuple(fw for fw in settings.pool_fork if fw != "jax"),
        fork_max_jobs=settings.pool_fork_max_jobs,
        jax_cache_dir=str(
            (settings.jax_cache_dir or settings.app_data_dir / "jax-cache").resolve()
        ),
    )


def get_grader(*, warm: bool = True) -> Grader:
    """The process-wide grader, started on first use."""
    global _grader
    with _lock:
        if _grader is None:
            _grader = Grader(get_settings().exercises_dir, pool_settings(warm=warm))
            _grader.start()
            if warm:  # the first wrong answer of each exercise then needs no extra runs
                threading.Thread(target=_grader.prime, daemon=True, name="grader-prime").start()
        return _grader


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
