"""The gradebook: one row per student, best score per exercise and quiz, and totals."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import (
    ColumnElement,
    DateTime,
    Select,
    case,
    false,
    func,
    literal,
    null,
    or_,
    select,
)
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.assessments.gradebook import (
    assessment_cells,
    assessment_columns,
)
from app.content.loader import Course
from app.deadlines.rules import Dates, Kind, offering_dates
from app.instructor.gradebook_rows import Column as Column
from app.instructor.gradebook_rows import ExerciseCell as ExerciseCell
from app.instructor.gradebook_rows import Gradebook as Gradebook
from app.instructor.gradebook_rows import QuizCell as QuizCell
from app.instructor.gradebook_rows import Row as Row
from app.models_base import as_utc
from app.offerings.access import offering_id_here, students_here, work_here_parts
from app.offerings.place import Place
from app.progress.models import QuizAttempt
from app.submissions.models import PRACTICE, RubricGrade, Submission
from app.users.models import User

SOLVED = 0.9999  # a score this high is full marks (floating point)
SORTS = ("student", "email", "total")


def _columns(course: Course) -> tuple[list[Column], list[Column]]:
    exercises = [
        Column(
            ex.meta.slug,
            ex.meta.title,
            ex.meta.due,
            practice=ex.meta.entry.kind == "experiment" and ex.meta.rubric is None,
            lab=ex.meta.entry.kind == "experiment",
        )
        for ex in course.exercises
        if not ex.meta.draft
    ]
    quizzes = [
        Column(les.meta.slug, les.meta.title, les.meta.due)
        for les in course.lessons
        if not les.meta.draft and les.meta.quiz
    ]
    return exercises, quizzes


def _dates(session: Session, exercises: list[Column], quizzes: list[Column], place: Place) -> Dates:
    offering_id, _ = offering_id_here(session=session, place=place)
    content: dict[tuple[Kind, str], dt.datetime | None] = {
        ("exercise", c.slug): c.due for c in exercises
    }
    content |= {("quiz", c.slug): c.due for c in quizzes}
    return offering_dates(session=session, offering_id=offering_id, content_dues=content)


# One row per (student, item) comes back from the database, not one per submission: a
# 500-student offering has tens of thousands of graded submissions (issue 27, point 6). The
# database counts them, finds the first full marks, and the best score on time and the best
# late one against the offering's due date. Cells it cannot judge alone (a student with an
# extension, late work under a penalty policy, which loses more the later it came) are then
# read submission by submission, as before.
Work = tuple[int, str, float | None, dt.datetime]  # user, slug, score, handed in at
# The students whose cells to read: a list after a search, else SQL for the offering's students
# (500 ids as bound parameters cost more to send than the rows they select).
Students = list[int] | Select[int]
Totals = tuple[int, str, int, dt.datetime | None, float | None, float | None]
# attempts, first full marks, best after the penalty, late, raw score, late penalty
Cell = tuple[int, dt.datetime | None, float | None, bool, float | None, float]


@dataclass(frozen=True)
class _Source:
    """Where one kind of scored work is stored, and which of its rows count."""

    kind: str  # "exercise" or "quiz", as due dates and extensions name them
    user: InstrumentedAttribute[int]
    slug: InstrumentedAttribute[str]
    score: InstrumentedAttribute[float | None] | InstrumentedAttribute[float]
    at: InstrumentedAttribute[dt.datetime]
    id: InstrumentedAttribute[int]
    where: tuple[ColumnElement[bool], ...]


def _late_sql(source: _Source, slugs: list[str], dates: Dates) -> ColumnElement[bool]:
    """SQL: this row came after its item's due date and grace (for every student alike)."""
    cutoffs = {s: c for s in slugs if (c := dates.cutoff(source.kind, s)) is not None}
    if not cutoffs:
        return false()
    stamp = DateTime(timezone=True)
    cutoff = case(
        {slug: literal(at, stamp) for slug, at in cutoffs.items()}, value=source.slug, else_=null()
    )
    return source.at > cutoff


def _totals(
    session: Session, source: _Source, user_ids: Students, slugs: list[str], dates: Dates
) -> list[Totals]:
    """Per student and item: attempts, first full marks, best on time and best late score."""
    late = _late_sql(source, slugs, dates)
    score = func.coalesce(source.score, 0.0)
    query = (
        select(
            source.user,
            source.slug,
            func.count(),
            func.min(case((source.score >= SOLVED, source.at), else_=null())),
            func.max(case((late, null()), else_=score)),
            func.max(case((late, score), else_=null())),
        )
        .where(source.slug.in_(slugs), source.user.in_(user_ids), *source.where)
        .group_by(source.user, source.slug)
    )
    return session.connection().execute(query).all()  # type: ignore[return-value]


def _work(
    session: Session, source: _Source, pairs: set[tuple[int, str]]
) -> dict[tuple[int, str], list[Work]]:
    """Every counted row of these (student, item) cells, oldest first."""
    found: dict[tuple[int, str], list[Work]] = {}
    if not pairs:
        return found
    query = (
        select(source.user, source.slug, source.score, source.at)
        .where(
            source.slug.in_({slug for _, slug in pairs}),
            source.user.in_({user for user, _ in pairs}),
            *source.where,
        )
        .order_by(source.at, source.id)
    )
    for user_id, slug, score, at in session.connection().execute(query):
        if (user_id, slug) in pairs:
            found.setdefault((user_id, slug), []).append((user_id, slug, score, at))
    return found


def _judged(
    source: _Source, dates: Dates, work: list[Work]
) -> tuple[float | None, bool, float | None, float]:
    """Best after the penalty, late, raw and penalty of one cell, one submission at a time."""
    best: float | None = None
    late, raw, penalty = False, None, 0.0
    for user_id, slug, score, at in work:
        value, standing = dates.counted(user_id, source.kind, slug, score or 0.0, at)
        if best is None or value > best:
            best, late, raw, penalty = value, standing.late, score or 0.0, standing.penalty
    return best, late, raw, penalty


def _cells(
    session: Session, source: _Source, user_ids: Students, slugs: list[str], dates: Dates
) -> dict[tuple[int, str], Cell]:
    """(student, item): attempts, first full marks, best, late, raw score and late penalty."""
    if not slugs:
        return {}
    totals = _totals(session, source, user_ids, slugs, dates)
    extended = {(u, s) for u, k, s in dates.extended if k == source.kind}
    penalised = dates.policy.mode == "penalty"
    again = {
        (user_id, slug)
        for user_id, slug, _, _, _, late_best in totals
        if ((user_id, slug) in extended and dates.has_due(source.kind, slug))
        or (penalised and late_best is not None)
    }
    rows = _work(session, source, again)
    cells = {}
    for user_id, slug, attempts, solved_at, on_time, late_best in totals:
        solved = None if solved_at is None else as_utc(solved_at)
        work = rows.get((user_id, slug))
        if work is not None:
            cells[user_id, slug] = (attempts, solved, *_judged(source, dates, work))
        elif late_best is not None and (on_time is None or late_best > on_time):
            cells[user_id, slug] = (attempts, solved, late_best, True, late_best, 0.0)
        else:
            cells[user_id, slug] = (attempts, solved, on_time, False, on_time, 0.0)
    return cells


def _in_order(
    cells: dict[tuple[int, str], Cell], slugs: list[str]
) -> list[tuple[tuple[int, str], Cell]]:
    """The cells in column order, so that a row's points always add up in the same order."""
    column = {slug: n for n, slug in enumerate(slugs)}
    return sorted(cells.items(), key=lambda item: (item[0][0], column[item[0][1]]))


def _fill_exercises(
    session: Session,
    rows: dict[int, Row],
    students: Students,
    columns: list[Column],
    dates: Dates,
    place: Place,
) -> None:
    counted = (
        Submission.mode == "submit",
        Submission.status == "done",
        Submission.purpose == PRACTICE,  # an exam's code counts in the exam's column
        or_(*work_here_parts(session, Submission.offering_id, place), false()),
    )
    graded_by_hand = Submission.id.in_(select(RubricGrade.submission_id))
    slugs = [c.slug for c in columns]
    labs = [c.slug for c in columns if c.lab and not c.practice]  # counted once graded
    for group, where in (
        ([s for s in slugs if s not in labs], counted),
        (labs, (*counted, graded_by_hand)),
    ):
        source = _Source(
            "exercise",
            Submission.user_id,
            Submission.exercise_slug,
            Submission.score,
            Submission.created_at,
            Submission.id,
            where,
        )
        found = _cells(session, source, students, group, dates)
        for (user_id, slug), (attempts, solved, best, late, raw, pen) in _in_order(found, group):
            if (row := rows.get(user_id)) is not None:  # None: enrolled since the rows were read
                row.exercises[slug] = ExerciseCell(best, attempts, solved, late, raw, pen)
    if labs:
        _mark_awaiting(session, rows, students, labs, (*counted, ~graded_by_hand))


def _mark_awaiting(
    session: Session,
    rows: dict[int, Row],
    students: Students,
    labs: list[str],
    where: tuple[ColumnElement[bool], ...],
) -> None:
    """Labs handed in that no person has graded: "awaiting grading" where nothing counts yet."""
    query = (
        select(Submission.user_id, Submission.exercise_slug, func.count())
        .where(Submission.exercise_slug.in_(labs), Submission.user_id.in_(students), *where)
        .group_by(Submission.user_id, Submission.exercise_slug)
    )
    for user_id, slug, waiting in session.execute(query):
        if (row := rows.get(user_id)) is None:
            continue
        cell = row.exercises.setdefault(slug, ExerciseCell())
        if cell.best is None:
            cell.awaiting, cell.attempts = True, cell.attempts + waiting


def _fill_quizzes(
    session: Session,
    rows: dict[int, Row],
    students: Students,
    quizzes: list[Column],
    dates: Dates,
    place: Place,
) -> None:
    source = _Source(
        "quiz",
        QuizAttempt.user_id,
        QuizAttempt.lesson_slug,
        QuizAttempt.score,
        QuizAttempt.created_at,
        QuizAttempt.id,
        (or_(*work_here_parts(session, QuizAttempt.offering_id, place), false()),),
    )
    slugs = [q.slug for q in quizzes]
    found = _cells(session, source, students, slugs, dates)
    for (user_id, slug), (attempts, _, best, late, raw, penalty) in _in_order(found, slugs):
        if (row := rows.get(user_id)) is not None:
            row.quizzes[slug] = QuizCell(best, attempts, late, raw, penalty)


def build_gradebook(
    *,
    session: Session,
    course: Course,
    place: Place,
    student: str = "",
    exercise: str = "",
    sort: str = "student",
    descending: bool = False,
) -> Gradebook:
    """Every student's row; `student` filters by name or email, `exercise` picks one column."""
    exercises, quizzes = _columns(course)
    users = session.execute(
        select(User.id, User.name, User.email).where(students_here(place)).order_by(User.id)
    )
    needle = student.strip().lower()
    practice = frozenset(c.slug for c in exercises if c.practice)
    rows = {
        user_id: Row(user_id, name, email, practice=practice)
        for user_id, name, email in users
        if not needle or needle in name.lower() or needle in email.lower()
    }
    students: Students = list(rows) if needle else select(User.id).where(students_here(place))
    if rows:
        dates = _dates(session, exercises, quizzes, place)
        _fill_exercises(session, rows, students, exercises, dates, place)
        _fill_quizzes(session, rows, students, quizzes, dates, place)
    book_assessments = assessment_columns(course) if not exercise else []
    cells = assessment_cells(
        session=session, slugs=[c.slug for c in book_assessments], user_ids=students, place=place
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
