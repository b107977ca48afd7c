"""The lane of a stored submission, read from its row: the transports stay free of the row."""

from __future__ import annotations

import logging

from app.courses.service import exercises_dir_for
from app.db import session_factory
from app.jobs.lanes import GRADING, exercise_lane
from app.submissions.models import Submission

log = logging.getLogger(__name__)


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
