"""Grading engine: runs untrusted code in a sandbox and judges it. Never imports `app`.

The names below are the public interface: `app/` imports only `graders` itself
(tests/test_layout.py checks this), so the modules behind them can move freely. They load on
first use, so importing `graders` (as every host-side helper process does) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graders.engine import Grader, Mode, UnknownExercise, UnknownFramework
    from graders.exercise_format import (
        FRAMEWORKS,
        SLUG_RE,
        ExerciseMeta,
        Mistake,
        MistakesFile,
        Rubric,
        Strict,
    )
    from graders.host.health import Health
    from graders.host.interpreter import PoolSettings
    from graders.host.jax_cache import fill as fill_jax_cache
    from graders.host.pool import PoolStopped
    from graders.host.warmup import encode_warmup, warmup_bundles
    from graders.judging.offline import OfflineJudge
    from graders.judging.spec import content_key
    from graders.lab.experiment_reference import cached, load_or_run, schemes_of, seeded_runs
    from graders.lab.experiments import StopRequested
    from graders.report import Report, TestResult, file_level, not_utf8
    from graders.sandbox import base_env

# public name -> (module, attribute)
_EXPORTS: dict[str, tuple[str, str]] = {
    "Grader": ("graders.engine", "Grader"),
    "Mode": ("graders.engine", "Mode"),
    "UnknownExercise": ("graders.engine", "UnknownExercise"),
    "UnknownFramework": ("graders.engine", "UnknownFramework"),
    "ExerciseMeta": ("graders.exercise_format", "ExerciseMeta"),
    "Mistake": ("graders.exercise_format", "Mistake"),
    "MistakesFile": ("graders.exercise_format", "MistakesFile"),
    "Rubric": ("graders.exercise_format", "Rubric"),
    "Strict": ("graders.exercise_format", "Strict"),
    "FRAMEWORKS": ("graders.exercise_format", "FRAMEWORKS"),
    "SLUG_RE": ("graders.exercise_format", "SLUG_RE"),
    "content_key": ("graders.judging.spec", "content_key"),
    "OfflineJudge": ("graders.judging.offline", "OfflineJudge"),
    "Health": ("graders.host.health", "Health"),
    "PoolSettings": ("graders.host.interpreter", "PoolSettings"),
    "PoolStopped": ("graders.host.pool", "PoolStopped"),
    "Report": ("graders.report", "Report"),
    "TestResult": ("graders.report", "TestResult"),
    "file_level": ("graders.report", "file_level"),
    "not_utf8": ("graders.report", "not_utf8"),
    "StopRequested": ("graders.lab.experiments", "StopRequested"),
    "cached": ("graders.lab.experiment_reference", "cached"),
    "load_or_run": ("graders.lab.experiment_reference", "load_or_run"),
    "schemes_of": ("graders.lab.experiment_reference", "schemes_of"),
    "seeded_runs": ("graders.lab.experiment_reference", "seeded_runs"),
    "fill_jax_cache": ("graders.host.jax_cache", "fill"),
    "base_env": ("graders.sandbox", "base_env"),
    "encode_warmup": ("graders.host.warmup", "encode_warmup"),
    "warmup_bundles": ("graders.host.warmup", "warmup_bundles"),
}
__all__ = [  # the same names as _EXPORTS, spelled out for type checkers
    "FRAMEWORKS",
    "SLUG_RE",
    "ExerciseMeta",
    "Grader",
    "Health",
    "Mistake",
    "MistakesFile",
    "Mode",
    "OfflineJudge",
    "PoolSettings",
    "PoolStopped",
    "Report",
    "Rubric",
    "StopRequested",
    "Strict",
    "TestResult",
    "UnknownExercise",
    "UnknownFramework",
    "base_env",
    "cached",
    "content_key",
    "encode_warmup",
    "file_level",
    "fill_jax_cache",
    "load_or_run",
    "not_utf8",
    "schemes_of",
    "seeded_runs",
    "warmup_bundles",
]


def __getattr__(name: str) -> Any:
    """Load a public name on first use; any other name is a submodule or an AttributeError."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'graders' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value
