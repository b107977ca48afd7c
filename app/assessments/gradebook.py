"""Assessment columns of the instructor gradebook: each student's best handed-in attempt."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from app.assessments.loader import assessments_for
from app.assessments.models import Accommodation, AssessmentAttempt
from app.assessments.scoring import closes_for, counted_score, released
from app.content.loader import Course
from app.models_base import as_utc, utcnow
from app.offerings.access import work_here
from app.offerings.place import Place


@dataclass
class AssessmentCell:
    """One student's attempts at one assessment, as the gradebook shows them."""

    best: float | None = None  # after the late penalty (homework under a penalty policy)
    attempts: int = 0
    running: bool = False
    grading: bool = False
    released: bool = False  # the best score is visible to the student and sent to the LMS
    late: bool = False  # the best attempt was handed in after the homework closed
    raw: float | None = None  # its score before the late penalty
    penalty: float = 0.0  # the share the offering's late policy took off


@dataclass(frozen=True)
class AssessmentColumn:
    """An assessment the gradebook has a column for."""

    slug: str
    title: str
    closes: dt.datetime
    kind: str = "exam"  # "exam" or "homework": its category in the course grade


def assessment_columns(course: Course) -> list[AssessmentColumn]:
    """Every loaded assessment, earliest first."""
    return [
        AssessmentColumn(s.slug, s.title, s.closes, s.kind)
        for s in assessments_for(course).ordered()
    ]


def assessment_cells(
    *, session: Session, slugs: list[str], user_ids: list[int] | Select[int], place: Place
) -> dict[int, dict[str, AssessmentCell]]:
    """Cells by student and assessment slug (instructors see scores before their release);
    `user_ids` may be SQL selecting them (a whole offering's, cheaper than 500 parameters).
    Only attempts made in the place's offering count, never a student's from another."""
    now = utcnow()
    cells: dict[int, dict[str, AssessmentCell]] = {}
    if not slugs or (isinstance(user_ids, list) and not user_ids):
        return cells
    rows = session.scalars(
        select(AssessmentAttempt).where(
            AssessmentAttempt.assessment_slug.in_(slugs),
            AssessmentAttempt.user_id.in_(user_ids),
            work_here(session, AssessmentAttempt.offering_id, place),
        )
    )
    own_close = {
        (a.user_id, a.assessment_slug): as_utc(a.closes_at)
        for a in session.scalars(
            select(Accommodation).where(
                Accommodation.assessment_slug.in_(slugs),
                Accommodation.user_id.in_(user_ids),
                work_here(
                    session, Accommodation.offering_id, place
                ),  # another offering's are not these
            )
        )
        if a.closes_at is not None
    }
    for attempt in rows:
        cell = cells.setdefault(attempt.user_id, {}).setdefault(
            attempt.assessment_slug, AssessmentCell()
        )
        cell.attempts += 1
        if attempt.status == "open":
            cell.running = True
        elif attempt.score is None:
            cell.grading = True
        else:
            closes = closes_for(attempt, own_close)
            value, standing = counted_score(session=session, attempt=attempt, closes=closes)
            if cell.best is None or value > cell.best:
                cell.best, cell.released = value, released(attempt, now)
                cell.late, cell.raw, cell.penalty = standing.late, attempt.score, standing.penalty
    return cells


def attempt_count(*, session: Session, slug: str, place: Place) -> int:
    """How many attempts were made at an assessment in the place's offering (instructor
    overview: another offering's attempts are not this one's)."""
    found = session.scalar(
        select(func.count()).where(
            AssessmentAttempt.assessment_slug == slug,
            work_here(session, AssessmentAttempt.offering_id, place),
        )
    )
    return int(found or 0)
