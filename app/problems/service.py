"""Taking and resolving problem reports; every rule lives here, the routes only translate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.errors import DomainError
from app.models_base import utcnow
from app.offerings.access import row_here, work_here
from app.offerings.place import Place
from app.offerings.service import offering_for_work
from app.offerings.standing import staff_of_course
from app.problems.models import ProblemReport
from app.submissions.models import Submission
from app.users.models import User

MAX_MESSAGE = 2000
Kind = Literal["exercise", "quiz"]


class ProblemError(DomainError):
    """A report that cannot be taken, with the plain words to show and an HTTP status."""


def _check_target(
    course: Course, kind: str, slug: str, question_id: str | None, *, staff: bool
) -> None:
    """404 for what is not there for this person: a draft is not, to a student, so a report
    cannot tell which drafts (and which of their questions) exist."""
    if kind == "exercise":
        exercise = course.exercise(slug)
        if exercise is None or (exercise.meta.draft and not staff):
            raise ProblemError(404, f"There is no exercise called '{slug}'.")
        return
    if kind != "quiz":
        raise ProblemError(400, "A report is about an exercise or a quiz question.")
    lesson = course.lesson(slug)
    if lesson is None or (lesson.meta.draft and not staff):
        raise ProblemError(404, f"There is no lesson called '{slug}'.")
    if not question_id:
        raise ProblemError(400, "Choose the question your report is about.")
    if question_id not in {q.id for q in lesson.meta.quiz}:
        raise ProblemError(404, f"The quiz of '{slug}' has no question '{question_id}'.")


def report_problem(
    *,
    session: Session,
    course: Course,
    course_slug: str,
    user: User,
    kind: str,
    slug: str,
    question_id: str | None,
    message: str,
    place: Place,
) -> ProblemReport:
    """Store a report in the offering the student works in (its staff alone see it); an
    exercise's report carries the student's latest submission of it in that course."""
    text = message.strip()
    if not text:
        raise ProblemError(400, "Write a few words about the problem, then send the report.")
    if len(text) > MAX_MESSAGE:
        raise ProblemError(
            400, f"Keep the report under {MAX_MESSAGE} characters (yours has {len(text)})."
        )
    staff = staff_of_course(session=session, user=user, course_slug=course_slug)
    _check_target(course, kind, slug, question_id, staff=staff)
    offering_id = offering_for_work(
        session=session, user_id=user.id, course_slug=course_slug, named=place.offering_id
    )
    if offering_id is None:
        raise ProblemError(
            403, "You are not in an offering of this course yet; join one, then send the report."
        )
    latest = None
    if kind == "exercise":
        latest = session.scalar(
            select(Submission.id)
            .where(
                Submission.user_id == user.id,
                Submission.exercise_slug == slug,
                Submission.course_slug == course_slug,
            )
            .order_by(Submission.id.desc())
            .limit(1)
        )
    row = ProblemReport(
        user_id=user.id,
        kind=kind,
        slug=slug,
        question_id=question_id if kind == "quiz" else None,
        submission_id=latest,
        message=text,
        offering_id=offering_id,
    )
    session.add(row)
    session.commit()
    return row


@dataclass(frozen=True)
class ReportLine:
    """One report as the instructors' list shows it."""

    report: ProblemReport
    student: str


def list_reports(*, session: Session, resolved: bool, place: Place) -> list[ReportLine]:
    """Open (or resolved) reports filed in the place's offering, newest first, with their name."""
    done = ProblemReport.resolved_at.is_not(None)
    rows = session.execute(
        select(ProblemReport, User)
        .join(User, User.id == ProblemReport.user_id)
        .where(
            done if resolved else ProblemReport.resolved_at.is_(None),
            work_here(session, ProblemReport.offering_id, place),
        )
        .order_by(ProblemReport.id.desc())
    ).all()
    return [ReportLine(report, user.name or user.email) for report, user in rows]


MAX_REPLY_CHARS = 4000


def resolve(
    *, session: Session, report_id: int, instructor: User, place: Place, reply: str = ""
) -> ProblemReport:
    """Mark a report resolved, with an optional reply the student reads on their home page
    (again is harmless: the first resolution stays; a later reply replaces the earlier)."""
    row = session.get(ProblemReport, report_id)
    if row is None or not row_here(session, row.offering_id, place):
        raise ProblemError(404, "There is no report with that number.")
    words = reply.strip()
    if len(words) > MAX_REPLY_CHARS:
        raise ProblemError(422, f"A reply must be at most {MAX_REPLY_CHARS} characters long.")
    if row.resolved_at is None:
        row.resolved_at, row.resolved_by = utcnow(), instructor.id
    if words:
        row.reply, row.replied_by_name = words, instructor.name or "Course staff"
    session.commit()
    return row
