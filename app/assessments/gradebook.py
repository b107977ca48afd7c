"""Assessment columns of the instructor gradebook: each student's best handed-in attempt."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.loader import assessments_for
from app.assessments.models import AssessmentAttempt
from app.assessments.scoring import released
from app.content.loader import Course
from app.models_base import utcnow


@dataclass
class AssessmentCell:
    """One student's attempts at one assessment, as the gradebook shows them."""

    best: float | None = None
    attempts: int = 0
    running: bool = False
    grading: bool = False
    released: bool = False  # the best score is visible to the student and sent to the LMS


@dataclass(frozen=True)
class AssessmentColumn:
    """An assessment the gradebook has a column for."""

    slug: str
    title: str
    closes: dt.datetime


def assessment_columns(course: Course) -> list[AssessmentColumn]:
    """Every loaded assessment, earliest first."""
    return [AssessmentColumn(s.slug, s.title, s.closes) for s in assessments_for(course).ordered()]


def assessment_cells(
    *, session: Session, slugs: list[str], user_ids: list[int]
) -> dict[int, dict[str, AssessmentCell]]:
    """Cells by student and assessment slug (instructors see scores before their release)."""
    now = utcnow()
    cells: dict[int, dict[str, AssessmentCell]] = {}
    if not slugs or not user_ids:
        return cells
    rows = session.scalars(
        select(AssessmentAttempt).where(
            AssessmentAttempt.assessment_slug.in_(slugs), AssessmentAttempt.user_id.in_(user_ids)
        )
    )
    for attempt in rows:
        cell = cells.setdefault(attempt.user_id, {}).setdefault(
            attempt.assessment_slug, AssessmentCell()
        )
        cell.attempts += 1
        if attempt.status == "open":
            cell.running = True
        elif attempt.score is None:
            cell.grading = True
        elif cell.best is None or attempt.score > cell.best:
            cell.best, cell.released = attempt.score, released(attempt, now)
    return cells
