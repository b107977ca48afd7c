"""The gradebook as CSV for spreadsheets and LMS imports: fractions 0 to 1, times in UTC."""

from __future__ import annotations

import csv
import datetime as dt
import io

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.gradebook import AssessmentCell
from app.instructor.course_grade import CATEGORIES, DEFAULT, Scheme, course_grade
from app.instructor.gradebook import ExerciseCell, Gradebook, QuizCell
from app.models_base import as_utc
from app.users.models import User

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """A spreadsheet cell that can never run as a formula (names come from students)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}".rstrip("0").rstrip(".")


def _when(value: dt.datetime | None) -> str:
    return "" if value is None else as_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def student_ids(*, session: Session, user_ids: list[int]) -> dict[int, str | None]:
    """Each student's id in the school's records (a roster's student_id column), if known."""
    if not user_ids:
        return {}
    rows = session.execute(select(User.id, User.student_id).where(User.id.in_(user_ids)))
    return {user_id: sid for user_id, sid in rows}


def gradebook_csv(
    book: Gradebook, *, scheme: Scheme = DEFAULT, student_ids: dict[int, str | None] | None = None
) -> str:
    """The gradebook as CSV: scores are fractions 0 to 1 (best after the late penalty, raw
    before it, the penalty as the share taken off), times are UTC; the student id and the
    course grade (weighted categories, the offering's scheme) lead, for an LMS or SIS import."""
    ids = student_ids or {}
    header = ["student id", "name", "email", "course grade"]
    header += [f"{c} (category mean)" for c in CATEGORIES]
    for col in book.shown_exercises:
        header += [f"{col.slug} best", f"{col.slug} attempts", f"{col.slug} solved at"]
        header += [f"{col.slug} late", f"{col.slug} raw", f"{col.slug} late penalty"]
    for col in book.shown_quizzes:
        header += [f"quiz {col.slug} score", f"quiz {col.slug} late"]
        header += [f"quiz {col.slug} raw", f"quiz {col.slug} late penalty"]
    for acol in book.assessments:
        header += [f"assessment {acol.slug} score", f"assessment {acol.slug} raw"]
        header += [f"assessment {acol.slug} late penalty"]
    header += ["exercises solved", "exercise points", "quiz points", "total"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_cell(h) for h in header])
    for row in book.rows:
        # Only the name and email come from people; every other cell is a number, a time or
        # "yes", which a spreadsheet cannot take for a formula (a score is never negative).
        grade = course_grade(book, row, scheme)
        cells: list[object] = [csv_cell(ids.get(row.user_id) or ""), csv_cell(row.name)]
        cells += [csv_cell(row.email), _score(grade.grade)]
        cells += [_score(grade.categories.get(c)) for c in CATEGORIES]
        for col in book.shown_exercises:
            ex = row.exercises.get(col.slug, ExerciseCell())
            cells += [_score(ex.best), ex.attempts, _when(ex.solved_at), "yes" if ex.late else ""]
            cells += [_score(ex.raw), _score(ex.penalty) if ex.late else ""]
        for col in book.shown_quizzes:
            quiz = row.quizzes.get(col.slug, QuizCell())
            cells += [_score(quiz.best), "yes" if quiz.late else ""]
            cells += [_score(quiz.raw), _score(quiz.penalty) if quiz.late else ""]
        for acol in book.assessments:
            cell = row.assessments.get(acol.slug, AssessmentCell())
            cells += [
                _score(cell.best),
                _score(cell.raw),
                _score(cell.penalty) if cell.late else "",
            ]
        cells += [
            row.solved,
            _score(row.exercise_points),
            _score(row.quiz_points),
            _score(row.total(book.items)),
        ]
        writer.writerow(cells)
    return out.getvalue()
