"""Manual score overrides and deadline extensions: every change is recorded with a reason."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.db import retry_conflicts
from app.deadlines.models import DeadlineExtension
from app.deadlines.rules import KINDS, Kind, extension_for, item_due
from app.errors import DomainError
from app.events import grade_recorded
from app.instructor.deadlines import refresh_late_flags
from app.instructor.graded_score import score_without_override
from app.instructor.models import ScoreOverride
from app.lti.outbox import queue_offering
from app.models_base import as_utc, utcnow
from app.offerings.access import offering_here, offering_id_here, row_here
from app.offerings.first import legacy_offering_id_query
from app.offerings.place import Place
from app.submissions.models import Submission
from app.users.models import User

MAX_REASON_CHARS = 1000


class InstructorError(DomainError, ValueError):
    """A request an instructor made that cannot be honoured (422); the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(422, message)


def _reason(reason: str, *, required: bool) -> str:
    text = reason.strip()
    if required and not text:
        raise InstructorError("Give a reason; the student sees it next to the new score.")
    if len(text) > MAX_REASON_CHARS:
        raise InstructorError(f"The reason must be at most {MAX_REASON_CHARS} characters long.")
    return text


def set_override(
    *,
    session: Session,
    submission: Submission,
    score: float | None,
    reason: str,
    instructor: User,
) -> Submission:
    """Replace the submission's score by hand (None removes the override); recorded."""
    if submission.status != "done":
        raise InstructorError("This submission has not been graded yet; wait for its report.")
    if score is not None and not 0.0 <= score <= 1.0:
        raise InstructorError("The score must be between 0 and 1 (0% to 100%).")
    text = _reason(reason, required=score is not None)
    now = utcnow()
    submission.override_score = score
    submission.override_reason = text if score is not None else None
    submission.override_by = instructor.id if score is not None else None
    submission.override_at = now if score is not None else None
    submission.score = (  # no override: the tests', with a person's rubric grade on them
        score
        if score is not None
        else score_without_override(session=session, submission=submission)
    )
    session.add(
        ScoreOverride(
            submission_id=submission.id,
            instructor_id=instructor.id,
            score=score,
            reason=text,
            created_at=now,
        )
    )
    grade_recorded(  # an exam's answer: its attempt's score and LMS post follow
        session=session,
        user_id=submission.user_id,
        kind="exercise",
        slug=submission.exercise_slug,
        submission_id=submission.id,
        purpose=submission.purpose,
    )
    session.commit()
    return submission


def override_log(*, session: Session, submission_ids: list[int]) -> dict[int, list[ScoreOverride]]:
    """Every override change per submission, oldest first."""
    found: dict[int, list[ScoreOverride]] = {}
    if not submission_ids:
        return found
    rows = session.scalars(
        select(ScoreOverride)
        .where(ScoreOverride.submission_id.in_(submission_ids))
        .order_by(ScoreOverride.created_at, ScoreOverride.id)
    )
    for row in rows:
        found.setdefault(row.submission_id, []).append(row)
    return found


def content_due(course: Course, kind: Kind, slug: str) -> dt.datetime | None:
    """The due date the content gives an exercise or a lesson's quiz; errors if no such item."""
    if kind == "exercise":
        exercise = course.exercise(slug)
        if exercise is None:
            raise InstructorError(f"There is no exercise called '{slug}'.")
        return exercise.meta.due
    lesson = course.lesson(slug)
    if lesson is None or not lesson.meta.quiz:
        raise InstructorError(f"There is no quiz in a lesson called '{slug}'.")
    return lesson.meta.due


def grant_extension(
    *,
    session: Session,
    course: Course,
    student: User,
    kind: str,
    slug: str,
    due_at: dt.datetime,
    reason: str,
    instructor: User,
    place: Place,
) -> DeadlineExtension:
    """Give one student a later due date (replacing an earlier extension of the same item)."""
    if kind not in KINDS:
        raise InstructorError("An extension is for an 'exercise' or a 'quiz'.")
    checked: Kind = "exercise" if kind == "exercise" else "quiz"
    offering_id, _ = offering_id_here(session=session, place=place)
    due = item_due(
        session=session,
        offering_id=offering_id,
        kind=checked,
        slug=slug,
        due=content_due(course, checked, slug),
    )
    if due is None:
        raise InstructorError(f"'{slug}' has no due date, so there is nothing to extend.")
    text = _reason(reason, required=False)

    def store() -> DeadlineExtension:
        row = extension_for(
            session=session, user_id=student.id, kind=checked, slug=slug, offering_id=offering_id
        )
        if row is None:
            row = DeadlineExtension(
                user_id=student.id, kind=checked, slug=slug, offering_id=offering_id
            )
            session.add(row)
        row.due_at = as_utc(due_at)
        row.reason = text
        row.granted_by = instructor.id
        row.created_at = utcnow()
        # The score that counts may change with the date: the LMS's column follows.
        queue_offering(
            session=session, offering_id=offering_id, kind=checked, slug=slug, user_id=student.id
        )
        session.commit()
        return row

    row = retry_conflicts(session, store)  # a double click on Grant: the last one stays
    if checked == "exercise":
        refresh_late_flags(
            session=session,
            user_id=student.id,
            slug=slug,
            due=content_due(course, checked, slug),
            offering_id=offering_id,
        )
    return row


def remove_extension(
    *, session: Session, course: Course, extension_id: int, student: User, place: Place
) -> None:
    """Take an extension back; the content's due date applies again."""
    row = session.get(DeadlineExtension, extension_id)
    offering_id, _ = offering_id_here(session=session, place=place)
    # A row from before offerings is the first course's first offering's (as `extensions_of`).
    if row is None or row.user_id != student.id or not row_here(session, row.offering_id, place):
        raise InstructorError("That extension does not exist (it may have been removed).")
    kind, slug = row.kind, row.slug
    session.delete(row)
    queue_offering(  # the earlier date's penalty applies again: the LMS's column follows
        session=session, offering_id=offering_id, kind=kind, slug=slug, user_id=student.id
    )
    session.commit()
    if kind == "exercise":
        exercise = course.exercise(slug)
        due = exercise.meta.due if exercise is not None else None
        refresh_late_flags(
            session=session, user_id=student.id, slug=slug, due=due, offering_id=offering_id
        )


def extensions_of(*, session: Session, user_id: int, place: Place) -> list[DeadlineExtension]:
    """A student's extensions in this request's offering, by item."""
    return list(
        session.scalars(
            select(DeadlineExtension)
            .where(
                DeadlineExtension.user_id == user_id,
                func.coalesce(DeadlineExtension.offering_id, legacy_offering_id_query())
                == offering_here(place),
            )
            .order_by(DeadlineExtension.kind, DeadlineExtension.slug)
        )
    )
