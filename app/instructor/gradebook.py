"""The gradebook: one row per student, best score per exercise and quiz, and totals."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.gradebook import (
    AssessmentCell,
    AssessmentColumn,
    assessment_cells,
    assessment_columns,
)
from app.content.loader import Course
from app.deadlines.rules import Dates, Kind, offering_dates
from app.models_base import as_utc
from app.offerings.access import offering_id_here, students_here, work_here
from app.progress.models import QuizAttempt
from app.submissions.models import Submission
from app.users.models import User

SOLVED = 0.9999  # a score this high is full marks (floating point)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
SORTS = ("student", "email", "total")


@dataclass
class ExerciseCell:
    """One student's work on one exercise (graded 'submit' submissions only)."""

    best: float | None = None  # the score that counts: the late penalty already taken off
    attempts: int = 0
    solved_at: dt.datetime | None = None
    late: bool = False  # the best-scoring submission came after the due date
    raw: float | None = None  # that submission's score before the late penalty
    penalty: float = 0.0  # the share of it the late policy took off, 0 to 1


@dataclass
class QuizCell:
    """One student's attempts at one lesson's quiz."""

    best: float | None = None  # after the late penalty
    attempts: int = 0
    late: bool = False
    raw: float | None = None
    penalty: float = 0.0


@dataclass
class Row:
    """One student and every cell of their row."""

    user_id: int
    name: str
    email: str
    exercises: dict[str, ExerciseCell] = field(default_factory=dict)
    quizzes: dict[str, QuizCell] = field(default_factory=dict)
    practice: frozenset[str] = frozenset()  # exercises shown but not counted (the labs)
    assessments: dict[str, AssessmentCell] = field(default_factory=dict)  # not in the total

    @property
    def solved(self) -> int:
        """Exercises solved with full marks."""
        return sum(c.solved_at is not None for c in self.exercises.values())

    @property
    def exercise_points(self) -> float:
        """Sum of best exercise scores (each 0 to 1), practice-only exercises left out."""
        return sum(c.best or 0.0 for s, c in self.exercises.items() if s not in self.practice)

    @property
    def quiz_points(self) -> float:
        """Sum of best quiz scores (each 0 to 1)."""
        return sum(c.best or 0.0 for c in self.quizzes.values())

    def total(self, items: int) -> float:
        """Share of all course points, 0 to 1."""
        return (self.exercise_points + self.quiz_points) / items if items else 0.0


@dataclass(frozen=True)
class Column:
    """An exercise or a quiz the gradebook has a column for."""

    slug: str
    title: str
    due: dt.datetime | None
    # A lab: its verdict comes from code that runs in the student's own process, which could
    # patch the lab (the golden test `tamper-patch-the-lab`), so its score is practice only.
    practice: bool = False


@dataclass
class Gradebook:
    """Columns, rows and the view options that produced them."""

    exercises: list[Column]
    quizzes: list[Column]
    rows: list[Row]
    shown_exercises: list[Column]
    shown_quizzes: list[Column]
    assessments: list[AssessmentColumn] = field(default_factory=list)

    @property
    def items(self) -> int:
        """How many scored items the course has (the denominator of the total)."""
        return sum(not c.practice for c in self.exercises) + len(self.quizzes)


def _columns(course: Course) -> tuple[list[Column], list[Column]]:
    exercises = [
        Column(ex.meta.slug, ex.meta.title, ex.meta.due, ex.meta.entry.kind == "experiment")
        for ex in course.exercises
        if not ex.meta.draft
    ]
    quizzes = [
        Column(les.meta.slug, les.meta.title, les.meta.due)
        for les in course.lessons
        if not les.meta.draft and les.meta.quiz
    ]
    return exercises, quizzes


def _dates(session: Session, exercises: list[Column], quizzes: list[Column]) -> Dates:
    offering_id, _ = offering_id_here(session=session)
    content: dict[tuple[Kind, str], dt.datetime | None] = {
        ("exercise", c.slug): c.due for c in exercises
    }
    content |= {("quiz", c.slug): c.due for c in quizzes}
    return offering_dates(session=session, offering_id=offering_id, content_dues=content)


def _fill_exercises(session: Session, rows: dict[int, Row], slugs: list[str], dates: Dates) -> None:
    # Core, not ORM, rows: a 500-student offering reads tens of thousands (issue 27, point 6).
    found = (
        session.connection()
        .execute(
            select(
                Submission.user_id,
                Submission.exercise_slug,
                Submission.score,
                Submission.created_at,
            )
            .where(
                Submission.exercise_slug.in_(slugs),
                Submission.mode == "submit",
                Submission.status == "done",
                Submission.user_id.in_(list(rows)),
                work_here(session, Submission.offering_id),
            )
            .order_by(Submission.created_at, Submission.id)
        )
        .all()
    )
    dated = {slug for slug in slugs if dates.has_due("exercise", slug)}
    for user_id, slug, score, created_at in found:
        cell = rows[user_id].exercises.setdefault(slug, ExerciseCell())
        cell.attempts += 1
        raw = score or 0.0
        if slug not in dated:
            if cell.best is None or raw > cell.best:
                cell.best, cell.late, cell.raw, cell.penalty = raw, False, raw, 0.0
        else:
            value, standing = dates.counted(user_id, "exercise", slug, raw, created_at)
            if cell.best is None or value > cell.best:
                cell.best, cell.late = value, standing.late
                cell.raw, cell.penalty = raw, standing.penalty
        if raw >= SOLVED and cell.solved_at is None:
            cell.solved_at = as_utc(created_at)


def _fill_quizzes(
    session: Session, rows: dict[int, Row], quizzes: list[Column], dates: Dates
) -> None:
    found = session.execute(
        select(
            QuizAttempt.user_id, QuizAttempt.lesson_slug, QuizAttempt.score, QuizAttempt.created_at
        )
        .where(
            QuizAttempt.lesson_slug.in_([q.slug for q in quizzes]),
            QuizAttempt.user_id.in_(list(rows)),
            work_here(session, QuizAttempt.offering_id),
        )
        .order_by(QuizAttempt.created_at, QuizAttempt.id)
    ).all()
    for user_id, slug, score, created_at in found:
        cell = rows[user_id].quizzes.setdefault(slug, QuizCell())
        cell.attempts += 1
        value, standing = dates.counted(user_id, "quiz", slug, score, created_at)
        if cell.best is None or value > cell.best:
            cell.best, cell.late = value, standing.late
            cell.raw, cell.penalty = score, standing.penalty


def build_gradebook(
    *,
    session: Session,
    course: Course,
    student: str = "",
    exercise: str = "",
    sort: str = "student",
    descending: bool = False,
) -> Gradebook:
    """Every student's row; `student` filters by name or email, `exercise` picks one column."""
    exercises, quizzes = _columns(course)
    users = session.scalars(select(User).where(students_here()).order_by(User.id))
    needle = student.strip().lower()
    practice = frozenset(c.slug for c in exercises if c.practice)
    rows = {
        u.id: Row(u.id, u.name, u.email, practice=practice)
        for u in users
        if not needle or needle in u.name.lower() or needle in u.email.lower()
    }
    if rows:
        dates = _dates(session, exercises, quizzes)
        _fill_exercises(session, rows, [c.slug for c in exercises], dates)
        _fill_quizzes(session, rows, quizzes, dates)
    book_assessments = assessment_columns(course) if not exercise else []
    cells = assessment_cells(
        session=session, slugs=[c.slug for c in book_assessments], user_ids=list(rows)
    )
    for user_id, row in rows.items():
        row.assessments = cells.get(user_id, {})
    shown_ex = [c for c in exercises if not exercise or c.slug == exercise]
    shown_quiz = quizzes if not exercise else []
    book = Gradebook(
        exercises, quizzes, list(rows.values()), shown_ex, shown_quiz, book_assessments
    )
    book.rows.sort(key=lambda r: (r.name.lower() or r.email, r.email))
    if sort == "email":
        book.rows.sort(key=lambda r: r.email)
    elif sort == "total":
        book.rows.sort(key=lambda r: r.total(book.items))
    elif sort.startswith("quiz:"):
        slug = sort.removeprefix("quiz:")
        book.rows.sort(key=lambda r: _best(r.quizzes.get(slug)))
    elif sort != "student":
        book.rows.sort(key=lambda r: _best(r.exercises.get(sort)))
    if descending:
        book.rows.reverse()
    return book


def _best(cell: ExerciseCell | QuizCell | None) -> float:
    return -1.0 if cell is None or cell.best is None else cell.best


def valid_sort(book: Gradebook, sort: str) -> bool:
    """Whether a sort name names a column of this gradebook."""
    return (
        sort in SORTS
        or sort in {c.slug for c in book.exercises}
        or sort in {f"quiz:{c.slug}" for c in book.quizzes}
    )


def csv_cell(value: object) -> str:
    """A spreadsheet cell that can never run as a formula (names come from students)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}".rstrip("0").rstrip(".")


def _when(value: dt.datetime | None) -> str:
    return "" if value is None else as_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def gradebook_csv(book: Gradebook) -> str:
    """The gradebook as CSV: scores are fractions 0 to 1 (best after the late penalty, raw
    before it, the penalty as the share taken off), times are UTC."""
    header = ["name", "email"]
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
        cells: list[object] = [row.name, row.email]
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
        writer.writerow([csv_cell(c) for c in cells])
    return out.getvalue()
