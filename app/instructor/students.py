"""Everything one student handed in: submissions with full reports, quiz attempts, deadlines."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.deadlines.models import DeadlineExtension
from app.deadlines.policy import policy_for
from app.deadlines.rules import late_at, later_of, offering_dues
from app.instructor.models import ScoreOverride, SubmissionReport
from app.instructor.overrides import extensions_of, override_log
from app.models_base import as_utc
from app.offerings.access import offering_id_here, work_here
from app.offerings.models import Enrollment, OfferingRole
from app.offerings.place import Place
from app.progress.models import QuizAttempt
from app.submissions.models import Submission
from app.users.models import User


@dataclass
class SubmissionEntry:
    """A submission with the reports regrades replaced and the override changes."""

    row: Submission
    history: list[SubmissionReport] = field(default_factory=list)
    overrides: list[ScoreOverride] = field(default_factory=list)


@dataclass
class QuizEntry:
    """One quiz attempt and whether it came after the due date."""

    attempt: QuizAttempt
    late: bool


@dataclass
class Deadline:
    """An exercise or quiz with a due date, and this student's extension if any."""

    kind: str
    slug: str
    title: str
    due: dt.datetime
    extension: DeadlineExtension | None


@dataclass
class StudentView:
    """The instructor's page about one student."""

    user: User
    submissions: dict[str, list[SubmissionEntry]]
    quizzes: dict[str, list[QuizEntry]]
    deadlines: list[Deadline]
    extensions: list[DeadlineExtension]


def list_people(*, session: Session, place: Place) -> list[tuple[User, OfferingRole]]:
    """Everyone in this request's offering with their role there, students first, then by name."""
    here, _ = offering_id_here(session=session, place=place)
    rows = session.execute(
        select(User, Enrollment.role)
        .join(Enrollment, Enrollment.user_id == User.id)
        .where(Enrollment.offering_id == here)
    ).all()
    people = [(user, OfferingRole(role)) for user, role in rows]
    return sorted(
        people,
        key=lambda p: (p[1] != OfferingRole.student, p[0].name.lower(), p[0].email),
    )


def _history(session: Session, ids: list[int]) -> dict[int, list[SubmissionReport]]:
    found: dict[int, list[SubmissionReport]] = {}
    if not ids:
        return found
    rows = session.scalars(
        select(SubmissionReport)
        .where(SubmissionReport.submission_id.in_(ids))
        .order_by(SubmissionReport.replaced_at, SubmissionReport.id)
    )
    for row in rows:
        found.setdefault(row.submission_id, []).append(row)
    return found


def _deadlines(
    session: Session, course: Course, extensions: list[DeadlineExtension], place: Place
) -> list[Deadline]:
    """Every item with a due date in this offering (its own date, else the content's)."""
    by_item = {(e.kind, e.slug): e for e in extensions}
    offering_id, _ = offering_id_here(session=session, place=place)
    own_ex = offering_dues(session=session, offering_id=offering_id, kind="exercise")
    own_quiz = offering_dues(session=session, offering_id=offering_id, kind="quiz")
    found = [
        Deadline("exercise", ex.meta.slug, ex.meta.title, as_utc(due), None)
        for ex in course.exercises
        if (due := own_ex.get(ex.meta.slug, ex.meta.due)) is not None
    ]
    found += [
        Deadline("quiz", les.meta.slug, les.meta.title, as_utc(due), None)
        for les in course.lessons
        if les.meta.quiz and (due := own_quiz.get(les.meta.slug, les.meta.due)) is not None
    ]
    for item in found:
        item.extension = by_item.get((item.kind, item.slug))
    return found


def student_view(
    *, session: Session, course: Course, user: User, place: Place, exercise: str = ""
) -> StudentView:
    """Submissions (newest first, per exercise), quiz attempts with answers, deadlines: only
    the work done in this request's offering (never the person's work elsewhere)."""
    query = select(Submission).where(
        Submission.user_id == user.id, work_here(session, Submission.offering_id, place)
    )
    if exercise:
        query = query.where(Submission.exercise_slug == exercise)
    rows = list(session.scalars(query.order_by(Submission.created_at.desc(), Submission.id.desc())))
    ids = [r.id for r in rows]
    history, overrides = _history(session, ids), override_log(session=session, submission_ids=ids)
    submissions: dict[str, list[SubmissionEntry]] = {}
    for row in rows:
        entry = SubmissionEntry(row, history.get(row.id, []), overrides.get(row.id, []))
        submissions.setdefault(row.exercise_slug, []).append(entry)
    extensions = extensions_of(session=session, user_id=user.id, place=place)
    deadlines = _deadlines(session, course, extensions, place)
    grace = policy_for(
        session=session, offering_id=offering_id_here(session=session, place=place)[0]
    ).grace
    quiz_due = {  # late as the gradebook judges it: after the date and the grace period
        d.slug: later_of(d.due, d.extension.due_at if d.extension else None) + grace
        for d in deadlines
        if d.kind == "quiz"
    }
    quizzes: dict[str, list[QuizEntry]] = {}
    if not exercise:
        attempts = session.scalars(
            select(QuizAttempt)
            .where(
                QuizAttempt.user_id == user.id, work_here(session, QuizAttempt.offering_id, place)
            )
            .order_by(QuizAttempt.created_at.desc(), QuizAttempt.id.desc())
        )
        for attempt in attempts:
            late = late_at(attempt.created_at, quiz_due.get(attempt.lesson_slug))
            quizzes.setdefault(attempt.lesson_slug, []).append(QuizEntry(attempt, late))
    return StudentView(user, submissions, quizzes, deadlines, extensions)
