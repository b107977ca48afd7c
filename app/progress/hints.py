"""Hints open one at a time, in order; each opening is recorded for the instructors.

A course's exercise has its own hints: another course may have an exercise of the same slug, so
every read and write names the course (`course_slug`)."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db import read_rows
from app.offerings.access import students_here
from app.offerings.place import Place
from app.progress.models import HintReveal
from app.users.models import User

# Built once: every exercise page view reads it (issue 23).
_REVEALED = select(func.max(HintReveal.hint_number)).where(
    HintReveal.user_id == bindparam("user_id"),
    HintReveal.course_slug == bindparam("course_slug"),
    HintReveal.exercise_slug == bindparam("exercise_slug"),
)


def revealed_count(*, session: Session, user_id: int, course_slug: str, exercise_slug: str) -> int:
    """How many of the course's exercise's hints this student has opened (the first ones)."""
    params = {"user_id": user_id, "course_slug": course_slug, "exercise_slug": exercise_slug}
    return int(read_rows(session, _REVEALED, params).scalar() or 0)


def reveal_next(
    *, session: Session, user_id: int, course_slug: str, exercise_slug: str, available: int
) -> int:
    """Open the next hint (none past the last); returns how many are open now."""
    opened = revealed_count(
        session=session, user_id=user_id, course_slug=course_slug, exercise_slug=exercise_slug
    )
    if opened >= available:
        return opened
    session.add(
        HintReveal(
            user_id=user_id,
            course_slug=course_slug,
            exercise_slug=exercise_slug,
            hint_number=opened + 1,
        )
    )
    try:
        session.commit()
    except IntegrityError:  # a double click: the other request opened it
        session.rollback()
    return revealed_count(
        session=session, user_id=user_id, course_slug=course_slug, exercise_slug=exercise_slug
    )


def reveal_counts(*, session: Session, exercise_slug: str, place: Place) -> dict[int, int]:
    """{hint number: students of the place's offering who opened it in the place's course}; a
    reveal names its course, not its offering."""
    rows = session.execute(
        select(HintReveal.hint_number, func.count(HintReveal.user_id))
        .join(User, User.id == HintReveal.user_id)
        .where(
            HintReveal.course_slug == place.course_slug,
            HintReveal.exercise_slug == exercise_slug,
            students_here(place),
        )
        .group_by(HintReveal.hint_number)
    ).all()
    return {int(number): int(count) for number, count in rows}
