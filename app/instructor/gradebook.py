"""The gradebook: one row per student, best score per exercise and quiz, and totals."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, case, false, func, or_, select, union_all
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.assessments.gradebook import (
    AssessmentCell,
    AssessmentColumn,
    assessment_cells,
    assessment_columns,
)
from app.content.loader import Course
from app.deadlines.models import DeadlineExtension
from app.deadlines.rules import late_at
from app.models_base import as_utc
from app.offerings.access import offering_id_here, students_here
from app.progress.models import QuizAttempt
from app.submissions.models import Submission
from app.users.models import User

SOLVED = 0.9999  # a score this high is full marks (floating point)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
SORTS = ("student", "email", "total")


@dataclass
class ExerciseCell:
    """One student's work on one exercise (graded 'submit' submissions only)."""

    best: float | None = None
    attempts: int = 0
    solved_at: dt.datetime | None = None
    late: bool = False  # the best-scoring submission came after the due date


@dataclass
class QuizCell:
    """One student's attempts at one lesson's quiz."""

    best: float | None = None
    attempts: int = 0
    late: bool = False


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


def _in_offering(
    session: Session, column: InstrumentedAttribute[int | None]
) -> list[ColumnElement[bool]]:
    """One condition per SELECT to UNION: the offering's rows, and in the first offering also
    rows from before offerings. Plain equality, so an index on the column finds the rows."""
    here, legacy = offering_id_here(session=session)
    if here is None:
        return []
    return [column == here, *([column.is_(None)] if legacy else [])]


def _fill_exercises(session: Session, rows: dict[int, Row], slugs: list[str]) -> None:
    """One row per student and exercise, summed up by the database (issue 27: a 500-student
    offering has tens of thousands of graded submissions; only their summary leaves it)."""
    parts = [
        select(
            Submission.user_id,
            Submission.exercise_slug,
            func.coalesce(Submission.score, 0.0).label("score"),
            Submission.late,
            Submission.created_at,
            Submission.id,
        ).where(
            where,
            Submission.user_id.in_(list(rows)),
            Submission.exercise_slug.in_(slugs),
            Submission.mode == "submit",
            Submission.status == "done",
        )
        for where in _in_offering(session, Submission.offering_id)
    ]
    if not parts:
        return
    found = union_all(*parts).subquery() if len(parts) > 1 else parts[0].subquery()
    cell = (found.c.user_id, found.c.exercise_slug)
    graded = select(
        found.c.user_id,
        found.c.exercise_slug,
        found.c.score.label("best"),
        found.c.late,
        func.count().over(partition_by=cell).label("attempts"),
        func.min(case((found.c.score >= SOLVED, found.c.created_at)))
        .over(partition_by=cell)
        .label("solved_at"),
        # The best score's first submission decides whether the cell is late.
        func.row_number()
        .over(
            partition_by=cell,
            order_by=(found.c.score.desc(), found.c.created_at, found.c.id),
        )
        .label("place"),
    ).subquery()
    best = select(
        graded.c.user_id,
        graded.c.exercise_slug,
        graded.c.best,
        graded.c.late,
        graded.c.attempts,
        graded.c.solved_at,
    ).where(graded.c.place == 1)
    for user_id, slug, value, late, attempts, solved_at in session.execute(best):
        solved = None if solved_at is None else as_utc(solved_at)
        rows[user_id].exercises[slug] = ExerciseCell(
            float(value), int(attempts), solved, bool(late)
        )


def _fill_quizzes(session: Session, rows: dict[int, Row], quizzes: list[Column]) -> None:
    dues = {q.slug: q.due for q in quizzes}
    extended = {
        (e.user_id, e.slug): e.due_at
        for e in session.scalars(select(DeadlineExtension).where(DeadlineExtension.kind == "quiz"))
    }
    found = session.execute(
        select(
            QuizAttempt.user_id, QuizAttempt.lesson_slug, QuizAttempt.score, QuizAttempt.created_at
        )
        .where(
            QuizAttempt.lesson_slug.in_(list(dues)),
            QuizAttempt.user_id.in_(list(rows)),
            or_(*_in_offering(session, QuizAttempt.offering_id), false()),
        )
        .order_by(QuizAttempt.created_at, QuizAttempt.id)
    ).all()
    for user_id, slug, score, created_at in found:
        cell = rows[user_id].quizzes.setdefault(slug, QuizCell())
        cell.attempts += 1
        deadline = extended.get((user_id, slug), dues[slug]) if dues[slug] else None
        if cell.best is None or score > cell.best:
            cell.best, cell.late = score, late_at(created_at, deadline)


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
        _fill_exercises(session, rows, [c.slug for c in exercises])
        _fill_quizzes(session, rows, quizzes)
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
    """The gradebook as CSV: scores are fractions 0 to 1, times are UTC."""
    header = ["name", "email"]
    for col in book.shown_exercises:
        header += [f"{col.slug} best", f"{col.slug} attempts", f"{col.slug} solved at"]
        header += [f"{col.slug} late"]
    for col in book.shown_quizzes:
        header += [f"quiz {col.slug} score", f"quiz {col.slug} late"]
    header += [f"assessment {col.slug} score" for col in book.assessments]
    header += ["exercises solved", "exercise points", "quiz points", "total"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([csv_cell(h) for h in header])
    for row in book.rows:
        cells: list[object] = [row.name, row.email]
        for col in book.shown_exercises:
            ex = row.exercises.get(col.slug, ExerciseCell())
            cells += [_score(ex.best), ex.attempts, _when(ex.solved_at), "yes" if ex.late else ""]
        for col in book.shown_quizzes:
            quiz = row.quizzes.get(col.slug, QuizCell())
            cells += [_score(quiz.best), "yes" if quiz.late else ""]
        for acol in book.assessments:
            cells.append(_score(row.assessments.get(acol.slug, AssessmentCell()).best))
        cells += [
            row.solved,
            _score(row.exercise_points),
            _score(row.quiz_points),
            _score(row.total(book.items)),
        ]
        writer.writerow([csv_cell(c) for c in cells])
    return out.getvalue()
