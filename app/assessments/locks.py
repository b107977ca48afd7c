"""What a running attempt closes: an exercise's hints, model solutions and hidden tests."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.models import AssessmentAttempt
from app.models_base import as_utc
from app.submissions.locks import Lockable, provide_locks

WORDS = {"hints": "Hints", "solutions": "Model solutions", "hidden_tests": "Hidden tests"}


def exam_lock(
    *, session: Session, user_id: int, exercise_slug: str, what: Lockable, now: dt.datetime
) -> str | None:
    """Why `what` is closed for this student now (a running attempt asks this exercise), or None."""
    running = session.scalars(
        select(AssessmentAttempt).where(
            AssessmentAttempt.user_id == user_id,
            AssessmentAttempt.status == "open",
            AssessmentAttempt.deadline > now,
        )
    )
    key = f"x:{exercise_slug}"
    for attempt in running:
        if any(item["key"] == key for item in attempt.items) and not attempt.rules.get(what):
            until = as_utc(attempt.deadline).strftime("%H:%M UTC")
            return (
                f"{WORDS[what]} of this exercise are closed while your attempt at "
                f"'{attempt.assessment_slug}' runs (until {until})."
            )
    return None


def subscribe() -> None:
    """Close hints, solutions and hidden tests of a running exam's exercises in this process."""
    provide_locks(exam_lock)
