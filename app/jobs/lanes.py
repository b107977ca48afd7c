"""Which lane a job takes: experiments train for many seconds, so they queue apart.

Why: an ordinary job takes tens of milliseconds; an experiment holds a grading thread for up to
a minute. In their own lane (one thread here; the `experiments` Dramatiq queue in scale-out
mode) they never keep ordinary jobs waiting. Anything unknown goes to the ordinary lane.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import yaml

from app.courses.service import exercises_dir_for
from app.db import session_factory
from app.submissions.models import Submission

log = logging.getLogger(__name__)
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
            meta = yaml.safe_load(path.read_text(encoding="utf-8"))
            kind = str(meta["entry"]["kind"])
        except (OSError, yaml.YAMLError, KeyError, TypeError):
            kind = "unknown"
        with _lock:
            _kinds[key] = kind
    return EXPERIMENTS if kind == "experiment" else GRADING


def lane_of(submission_id: int) -> str:
    """The lane of a stored submission; GRADING if it cannot be told (never lose a job)."""
    try:
        with session_factory("background")() as session:
            row = session.get(Submission, submission_id)
            slug = row.exercise_slug if row is not None else None
            course = row.course_slug if row is not None else None
        folder = exercises_dir_for(course)
    except Exception:
        log.warning("lane of submission %s unknown; ordinary lane", submission_id, exc_info=True)
        return GRADING
    return exercise_lane(folder, slug) if slug else GRADING
