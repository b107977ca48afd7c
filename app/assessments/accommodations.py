"""Per-student accommodations: extra minutes and a different window, checked before storing.

Each offering has its own (the instructor's request names it): extra time given to a student
in one term does not follow them into another, and each term may give its own.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.clock import apply_accommodation
from app.assessments.models import Accommodation
from app.assessments.schema import AssessmentFile
from app.assessments.service import AssessmentError, accommodation_of, stamp
from app.courses.first import first_course_slug
from app.db import retry_conflicts
from app.models_base import as_utc, utcnow
from app.offerings.access import offering_id_here, work_here
from app.offerings.models import OfferingRole
from app.offerings.place import Place
from app.offerings.service import role_in
from app.users.models import User

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
    place: Place,
    course_slug: str | None = None,
) -> Accommodation:
    """Store (or replace) one student's accommodation; a bad one changes nothing."""
    here, _ = offering_id_here(session=session, place=place)
    held = None if here is None else role_in(session=session, user_id=user_id, offering_id=here)
    if held != OfferingRole.student:  # a student of this offering, not a global role
        raise AssessmentError(404, f"There is no student with id {user_id} in this offering.")
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
    offering_id, _ = offering_id_here(session=session, place=place)

    def store() -> Accommodation:
        row = accommodation_of(
            session=session, slug=spec.slug, user_id=user_id, offering_id=offering_id
        )
        if row is None:
            row = Accommodation(
                user_id=user_id,
                course_slug=course_slug or first_course_slug(),
                offering_id=offering_id,
                assessment_slug=spec.slug,
            )
            session.add(row)
        row.extra_minutes = extra_minutes
        row.opens_at, row.closes_at = opens_at, closes_at
        row.reason, row.set_by = reason[:2000], by.id
        session.flush()
        apply_accommodation(
            session=session, spec=spec, user_id=user_id, offering_id=offering_id, now=utcnow()
        )
        session.commit()
        return row

    return retry_conflicts(session, store)  # a double click on the first Save: the last stays


def remove_accommodation(*, session: Session, slug: str, user_id: int, place: Place) -> bool:
    """Delete one student's accommodation in this request's offering; False when there was none."""
    offering_id, _ = offering_id_here(session=session, place=place)
    row = accommodation_of(session=session, slug=slug, user_id=user_id, offering_id=offering_id)
    if row is None:
        return False
    session.delete(row)
    session.commit()
    return True


def accommodations_of(
    *, session: Session, slug: str, place: Place
) -> list[tuple[Accommodation, User]]:
    """Every accommodation on one assessment in this request's offering, with its student."""
    return [
        (row, user)
        for row, user in session.execute(
            select(Accommodation, User)
            .join(User, User.id == Accommodation.user_id)
            .where(
                Accommodation.assessment_slug == slug,
                work_here(session, Accommodation.offering_id, place),
            )
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
