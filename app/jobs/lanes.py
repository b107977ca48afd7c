"""Which lane a job takes: experiments train for many seconds, so they queue apart.

Why: an ordinary job takes tens of milliseconds; an experiment holds a grading thread for up to
a minute. In their own lane (one thread here; the `experiments` Dramatiq queue in scale-out
mode) they never keep ordinary jobs waiting. Anything unknown goes to the ordinary lane.
"""

from __future__ import annotations

import threading
from pathlib import Path

import yaml

from app import yamlio

GRADING, EXPERIMENTS = "grading", "experiments"
LANES = (GRADING, EXPERIMENTS)

_kinds: dict[tuple[str, float], str] = {}
_lock = threading.Lock()


def exercise_lane(exercises_dir: Path, slug: str) -> str:
    """EXPERIMENTS for an experiment exercise, else GRADING (cached per file version)."""
    path = exercises_dir / slug / "exercise.yaml"
    try:
        key = (str(path), path.stat().st_mtime)
    except OSError:
        return GRADING
    with _lock:
        kind = _kinds.get(key)
    if kind is None:
        try:
            meta = yamlio.safe_load(path.read_text(encoding="utf-8"))
            kind = str(meta["entry"]["kind"])
        except (OSError, yaml.YAMLError, KeyError, TypeError):
            kind = "unknown"
        with _lock:
            _kinds[key] = kind
    return EXPERIMENTS if kind == "experiment" else GRADING
