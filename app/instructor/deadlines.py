"""Re-flagging late work after an instructor moves a student's deadline."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.deadlines.rules import effective_due, late_at
from app.submissions.models import Submission


def refresh_late_flags(
    *, session: Session, user_id: int, slug: str, due: dt.datetime | None
) -> None:
    """Re-flag one student's submissions of an exercise after their deadline changed."""
    deadline = effective_due(session=session, user_id=user_id, kind="exercise", slug=slug, due=due)
    rows = session.execute(
        select(Submission.id, Submission.created_at, Submission.late).where(
            Submission.user_id == user_id, Submission.exercise_slug == slug
        )
    ).all()
    for row_id, created_at, was_late in rows:
        now_late = late_at(created_at, deadline)
        if now_late != was_late:
            session.execute(update(Submission).where(Submission.id == row_id).values(late=now_late))
    session.commit()
