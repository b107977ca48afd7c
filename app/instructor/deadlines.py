"""Re-flagging late work after an instructor moves a student's deadline or the class's."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.orm import Session

from app.deadlines.models import DeadlineExtension
from app.deadlines.policy import policy_for
from app.deadlines.rules import item_due, late_at, later_of
from app.offerings.first import legacy_offering_id_query, rows_before_offerings
from app.submissions.models import PRACTICE, Submission


def refresh_late_flags(
    *,
    session: Session,
    user_id: int,
    slug: str,
    due: dt.datetime | None,
    offering_id: int | None = None,
) -> None:
    """Re-flag one student's submissions of an exercise (in the offering) after a date moved."""
    refresh_class_late_flags(
        session=session, slug=slug, due=due, offering_id=offering_id, user_id=user_id
    )


def _practice_of(slug: str, offering_id: int | None) -> tuple[ColumnElement[bool], ...]:
    """SQL: practice submissions of the exercise that count in the offering (None: the first)."""
    here = legacy_offering_id_query() if offering_id is None else offering_id
    return (
        Submission.exercise_slug == slug,
        Submission.purpose == PRACTICE,  # an exam's answer is never late by practice dates
        or_(  # rows from before offerings are the first course's first offering's
            Submission.offering_id == here,
            and_(rows_before_offerings(Submission.offering_id), legacy_offering_id_query() == here),
        ),
    )


def refresh_class_late_flags(
    *,
    session: Session,
    slug: str,
    due: dt.datetime | None,
    offering_id: int | None,
    user_id: int | None = None,
) -> None:
    """Re-flag every student's (or one's) submissions of an exercise after the class's date or
    grace moved, in a few statements whatever the class's size: a late mark must follow the
    date the gradebook and the student's page now show (None: the first offering)."""
    here = legacy_offering_id_query() if offering_id is None else offering_id
    mine = () if user_id is None else (Submission.user_id == user_id,)
    base = item_due(session=session, offering_id=offering_id, kind="exercise", slug=slug, due=due)
    grace = policy_for(session=session, offering_id=offering_id).grace
    extended = dict(
        session.execute(
            select(DeadlineExtension.user_id, DeadlineExtension.due_at).where(
                DeadlineExtension.kind == "exercise",
                DeadlineExtension.slug == slug,
                func.coalesce(DeadlineExtension.offering_id, legacy_offering_id_query()) == here,
                *(() if user_id is None else (DeadlineExtension.user_id == user_id,)),
            )
        ).all()
    )
    rows = session.execute(
        select(Submission.id, Submission.user_id, Submission.created_at, Submission.late).where(
            *_practice_of(slug, offering_id), *mine
        )
    ).all()
    flips: dict[bool, list[int]] = {True: [], False: []}
    for row_id, user_id, created_at, was_late in rows:
        deadline = None if base is None else later_of(base, extended.get(user_id)) + grace
        now_late = late_at(created_at, deadline)
        if now_late != was_late:
            flips[now_late].append(row_id)
    for late, ids in flips.items():
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            session.execute(update(Submission).where(Submission.id.in_(chunk)).values(late=late))
    session.commit()
