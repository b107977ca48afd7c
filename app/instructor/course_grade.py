"""A course grade from the gradebook: weighted categories (homework, quizzes, exams, labs), the
lowest scores of a category dropped, as each offering sets it (Gradescope's and Canvas's shape).

Every item a student has not done counts 0. A category with no items in the course is left out
and the other weights share its part, so a course without exams is graded on what it has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.orm import Session

from app.assessments.gradebook import AssessmentCell
from app.db import retry_conflicts
from app.errors import DomainError
from app.instructor.gradebook import ExerciseCell, Gradebook, QuizCell, Row
from app.instructor.models import GradeScheme
from app.models_base import utcnow

Category = Literal["homework", "quizzes", "exams", "labs"]
CATEGORIES: tuple[Category, ...] = ("homework", "quizzes", "exams", "labs")
WORDS: dict[Category, str] = {
    "homework": "Homework (exercises and homework assessments)",
    "quizzes": "Quizzes (each lesson's quiz)",
    "exams": "Exams",
    "labs": "Labs",
}


class SchemeError(DomainError, ValueError):
    """A grading scheme that cannot be kept (422); the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(422, message)


@dataclass(frozen=True)
class Scheme:
    """Weights per category (any positive numbers; they are shared out) and drops per category."""

    weights: dict[str, float]
    drop_lowest: dict[str, int]

    def as_json(self) -> dict[str, Any]:
        """The scheme as the API shows and takes it."""
        return {"weights": self.weights, "drop_lowest": self.drop_lowest}


DEFAULT = Scheme(
    weights={"homework": 40.0, "quizzes": 20.0, "exams": 40.0, "labs": 0.0},
    drop_lowest={c: 0 for c in CATEGORIES},
)


def checked(*, weights: dict[str, float], drop_lowest: dict[str, int]) -> Scheme:
    """A scheme from a form or an API body, or a SchemeError naming what is wrong."""
    unknown = (set(weights) | set(drop_lowest)) - set(CATEGORIES)
    if unknown:
        names = ", ".join(sorted(unknown))
        raise SchemeError(f"Unknown categories: {names}. Use {', '.join(CATEGORIES)}.")
    full: dict[str, float] = {c: float(weights.get(c, 0.0)) for c in CATEGORIES}
    if any(not 0 <= w <= 1000 for w in full.values()):
        raise SchemeError("Each weight must be between 0 and 1000.")
    if sum(full.values()) <= 0:
        raise SchemeError("Give at least one category a weight above 0.")
    drops: dict[str, int] = {c: int(drop_lowest.get(c, 0)) for c in CATEGORIES}
    if any(not 0 <= d <= 50 for d in drops.values()):
        raise SchemeError("Drop between 0 and 50 of the lowest scores per category.")
    return Scheme(full, drops)


def scheme_for(*, session: Session, offering_id: int | None) -> Scheme:
    """The offering's scheme; an offering without one uses the default."""
    row = None if offering_id is None else session.get(GradeScheme, offering_id)
    if row is None:
        return DEFAULT
    return Scheme(dict(row.weights), dict(row.drop_lowest))


def set_scheme(*, session: Session, offering_id: int, scheme: Scheme, by: int | None) -> None:
    """Store the offering's scheme (grades are computed on reading, so it applies at once)."""

    def store() -> None:
        row = session.get(GradeScheme, offering_id)
        if row is None:
            row = GradeScheme(offering_id=offering_id)
            session.add(row)
        row.weights, row.drop_lowest = scheme.weights, scheme.drop_lowest
        row.set_by, row.updated_at = by, utcnow()
        session.commit()

    retry_conflicts(session, store)  # a double click on the first Save: the last one stays


@dataclass(frozen=True)
class CourseGrade:
    """One student's grade: each category's mean after the drops, and the weighted whole."""

    categories: dict[str, float | None]  # None: the course has no item of that category
    grade: float

    def as_json(self) -> dict[str, Any]:
        """The row's `course_grade` in the gradebook API."""
        return {"grade": self.grade, "categories": self.categories}


def _scores(book: Gradebook, row: Row) -> dict[Category, list[float]]:
    """Every item's counted score by category (an item not done counts 0)."""
    found: dict[Category, list[float]] = {c: [] for c in CATEGORIES}
    for col in book.exercises:
        cell = row.exercises.get(col.slug, ExerciseCell())
        if col.practice or cell.awaiting:
            continue  # a lab without a rubric never counts; one awaiting a person, not yet
        found["labs" if col.lab else "homework"].append(cell.best or 0.0)
    for qcol in book.quizzes:
        found["quizzes"].append(row.quizzes.get(qcol.slug, QuizCell()).best or 0.0)
    for acol in book.assessments:
        cell_a = row.assessments.get(acol.slug, AssessmentCell())
        found["exams" if acol.kind == "exam" else "homework"].append(cell_a.best or 0.0)
    return found


def _mean_after_drops(scores: list[float], drop: int) -> float | None:
    if not scores:
        return None
    kept = sorted(scores)[min(drop, len(scores) - 1) :]  # at least one score stays
    return sum(kept) / len(kept)


def course_grade(book: Gradebook, row: Row, scheme: Scheme) -> CourseGrade:
    """The weighted course grade of one row of the gradebook (0 to 1)."""
    means: dict[str, float | None] = {
        c: _mean_after_drops(s, scheme.drop_lowest.get(c, 0)) for c, s in _scores(book, row).items()
    }
    weighted = [(scheme.weights.get(c, 0.0), m) for c, m in means.items() if m is not None]
    total = sum(w for w, _ in weighted)
    grade = sum(w * m for w, m in weighted) / total if total > 0 else 0.0
    return CourseGrade(means, grade)
