"""Per-student accommodations: extra minutes and a different window, checked before storing."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.models import Accommodation
from app.assessments.schema import COURSE_SLUG, AssessmentFile
from app.assessments.service import AssessmentError, accommodation_of, stamp
from app.models_base import as_utc
from app.users.models import Role, User

MAX_EXTRA_MINUTES = 7 * 24 * 60


def set_accommodation(
    *,
    session: Session,
    spec: AssessmentFile,
    user_id: int,
    extra_minutes: float,
    opens_at: dt.datetime | None,
    closes_at: dt.datetime | None,
    reason: str,
    by: User,
) -> Accommodation:
    """Store (or replace) one student's accommodation; a bad one changes nothing."""
    student = session.get(User, user_id)
    if student is None or student.role != Role.student:
        raise AssessmentError(404, f"There is no student with id {user_id}.")
    if not 0 <= extra_minutes <= MAX_EXTRA_MINUTES:
        raise AssessmentError(422, f"Extra time must be between 0 and {MAX_EXTRA_MINUTES} minutes.")
    opens = as_utc(opens_at) if opens_at else as_utc(spec.opens)
    closes = as_utc(closes_at) if closes_at else as_utc(spec.closes)
    if closes <= opens:
        raise AssessmentError(
            422, f"The window must close after it opens ({stamp(opens)} to {stamp(closes)})."
        )
    if spec.time_limit_minutes is not None:
        needed = spec.time_limit_minutes + extra_minutes
        window = (closes - opens).total_seconds() / 60
        if needed > window:
            raise AssessmentError(
                422,
                f"The time limit with the extra time ({needed:g} minutes) is longer than this "
                f"student's window ({window:g} minutes); widen the window or give less time.",
            )
    row = accommodation_of(session=session, slug=spec.slug, user_id=user_id)
    if row is None:
        row = Accommodation(user_id=user_id, course_slug=COURSE_SLUG, assessment_slug=spec.slug)
        session.add(row)
    row.extra_minutes = extra_minutes
    row.opens_at, row.closes_at = opens_at, closes_at
    row.reason, row.set_by = reason[:2000], by.id
    session.commit()
    return row


def remove_accommodation(*, session: Session, slug: str, user_id: int) -> bool:
    """Delete one student's accommodation; False when there was none."""
    row = accommodation_of(session=session, slug=slug, user_id=user_id)
    if row is None:
        return False
    session.delete(row)
    session.commit()
    return True


def accommodations_of(*, session: Session, slug: str) -> list[tuple[Accommodation, User]]:
    """Every accommodation on one assessment with its student."""
    return [
        (row, user)
        for row, user in session.execute(
            select(Accommodation, User)
            .join(User, User.id == Accommodation.user_id)
            .where(Accommodation.assessment_slug == slug)
            .order_by(User.email)
        ).all()
    ]


def view(row: Accommodation) -> dict[str, object]:
    """The API shape of an accommodation."""
    return {
        "user_id": row.user_id,
        "assessment": row.assessment_slug,
        "extra_minutes": row.extra_minutes,
        "opens_at": as_utc(row.opens_at).isoformat() if row.opens_at else None,
        "closes_at": as_utc(row.closes_at).isoformat() if row.closes_at else None,
        "reason": row.reason,
    }
