"""The offering's graded work on one exercise that clusters read: one place decides what counts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from app.instructor.clusters.grouping import Row
from app.models_base import as_utc
from app.offerings.access import students_here, work_here
from app.offerings.place import Place
from app.submissions.models import PRACTICE, Submission
from app.users.models import User


def clusterable(session: Session, place: Place) -> list[ColumnElement[bool]]:
    """Which submissions clusters (and their regrades) may show: students' graded practice
    submissions sent in this request's offering. An exam's code answers are never clustered
    with practice (they are graded under the exam's rules and stay out of practice readers)."""
    return [
        students_here(place),
        work_here(session, Submission.offering_id, place),
        Submission.mode == "submit",
        Submission.status == "done",
        Submission.purpose == PRACTICE,
    ]


def _scope(session: Session, *, slug: str, place: Place) -> list[ColumnElement[bool]]:
    """The exercise's clusterable work (an offering belongs to one course)."""
    return [*clusterable(session, place), Submission.exercise_slug == slug]


def wrong_rows(*, session: Session, slug: str, place: Place) -> list[Row]:
    """Every wrong submission with a behaviour key, oldest first."""
    found = session.execute(
        select(
            Submission.id,
            Submission.user_id,
            User.email,
            Submission.behaviour_key,
            Submission.code,
            Submission.created_at,
            Submission.framework,
        )
        .join(User, User.id == Submission.user_id)
        .where(
            *_scope(session, slug=slug, place=place),
            Submission.verdict != "accepted",
            Submission.behaviour_key.is_not(None),
        )
        .order_by(Submission.created_at, Submission.id)
    ).all()
    return [Row(r[0], r[1], r[2], str(r[3]), r[4], as_utc(r[5]), r[6]) for r in found]


def unsigned_count(*, session: Session, slug: str, place: Place) -> int:
    """Wrong submissions graded before behaviour signatures (a regrade gives them one)."""
    return int(
        session.scalar(
            select(func.count(Submission.id))
            .join(User, User.id == Submission.user_id)
            .where(
                *_scope(session, slug=slug, place=place),
                Submission.verdict != "accepted",
                Submission.behaviour_key.is_(None),
            )
        )
        or 0
    )


def solvers(*, session: Session, slug: str, place: Place) -> set[int]:
    """Students with an accepted submission to this exercise."""
    return set(
        session.scalars(
            select(Submission.user_id)
            .join(User, User.id == Submission.user_id)
            .where(
                *_scope(session, slug=slug, place=place),
                Submission.verdict == "accepted",
            )
        )
    )


def reports(*, session: Session, ids: list[int]) -> dict[int, dict[str, Any]]:
    """Stored reports of these submissions (the clusters' representatives)."""
    rows = session.execute(select(Submission.id, Submission.report).where(Submission.id.in_(ids)))
    return {int(r[0]): r[1] or {} for r in rows}
