"""Submissions: write the row first, queue the job, grade it once, store the report."""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.courses.first import first_course_slug
from app.db import retry_conflicts
from app.deadlines.policy import refusal_message
from app.deadlines.rules import effective_due, lateness
from app.errors import DomainError
from app.hooks import practice_closed, result_held
from app.jobs import live
from app.models_base import utcnow
from app.offerings.first import dated_in
from app.offerings.place import Place
from app.offerings.service import offering_for_work
from app.offerings.standing import staff_of_course, staff_of_work
from app.submissions.locks import lock_reason
from app.submissions.models import PRACTICE, Draft, Submission
from app.users.models import User

log = logging.getLogger(__name__)


class SubmissionError(DomainError):
    """A submission that cannot be accepted; carries the HTTP status and a plain message."""


def create_submission(
    *,
    session: Session,
    course: Course,
    user: User,
    exercise: str,
    code: str,
    framework: str | None,
    mode: str,
    max_bytes: int,
    course_slug: str | None = None,
    content_version: str | None = None,
    purpose: str = PRACTICE,
    offering_id: int | None = None,
    place: Place | None = None,
    commit: bool = True,
) -> Submission:
    """Validate, then store the row as 'queued' (the caller queues the job after commit).

    An assessment's answer (`purpose` names its attempt, `offering_id` the attempt's offering)
    is graded under the assessment's rules: the exercise's practice due date and late policy
    neither refuse, flag nor penalise it, and it is never copied into the practice draft.
    Practice counts in the offering `place` names (None: the student's newest of the course).
    `commit=False` stores the row uncommitted, for a caller that claims something with it.
    """
    found = course.exercise(exercise)
    slug_here = course_slug or first_course_slug()
    if found is None or (
        found.meta.draft and not staff_of_course(session=session, user=user, course_slug=slug_here)
    ):
        raise SubmissionError(404, f"There is no exercise called '{exercise}'.")
    chosen = framework or found.meta.default_framework
    if chosen not in found.meta.frameworks:
        offered = ", ".join(found.meta.frameworks)
        raise SubmissionError(
            422, f"This exercise is not offered in '{chosen}'; choose one of: {offered}."
        )
    if mode not in ("submit", "run"):
        raise SubmissionError(422, "mode must be 'submit' or 'run'.")
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise SubmissionError(
            413,
            f"Your code is {size // 1024} KB; the limit is "
            f"{max_bytes // 1024} KB. Your text is still in the editor.",
        )
    row = Submission(
        user_id=user.id,
        exercise_slug=exercise,
        framework=chosen,
        mode=mode,
        code=code,
        status="queued",
        content_version=content_version,
        purpose=purpose,
    )
    if course_slug is not None:  # else the first course (the column's default)
        row.course_slug = course_slug
    if purpose == PRACTICE:
        held = practice_closed(
            session=session,
            user_id=user.id,
            course_slug=course_slug or first_course_slug(),
            keys=[f"x:{exercise}"],
            now=utcnow(),
        )
        if held:  # refused before anything is stored or graded: no feedback, no draft copy
            raise SubmissionError(409, held)
    else:  # the assessment already judged when it was handed in
        row.offering_id = offering_id
        return _stored(session, row, commit=commit)
    # The offering it counts in: a student of two terms of one course keeps two grades.
    row.offering_id = offering_for_work(
        session=session,
        user_id=user.id,
        course_slug=course_slug or first_course_slug(),
        named=place.offering_id if place is not None else None,
    )
    # Deadlines: the offering's dates and late policy (accept and flag, penalty, or refuse).
    standing = lateness(
        session=session,
        user_id=user.id,
        kind="exercise",
        slug=exercise,
        due=found.meta.due,
        at=utcnow(),
        offering_id=dated_in(session=session, offering_id=row.offering_id, course_slug=slug_here),
    )
    if standing.refused and mode == "submit" and standing.due is not None:
        _keep_as_draft(session=session, row=row, course_slug=slug_here)
        raise SubmissionError(
            409,
            refusal_message(due=standing.due, what="exercise")
            + " Your code is kept in your saved draft.",
        )
    row.late = standing.late
    return _stored(session, row, commit=commit)


def _stored(session: Session, row: Submission, *, commit: bool) -> Submission:
    session.add(row)
    if commit:
        session.commit()
    else:
        session.flush()  # its id, for what the caller stores with it
    return row


def _keep_as_draft(*, session: Session, row: Submission, course_slug: str) -> None:
    """Refused work is saved as the student's draft in its course, so nothing they typed is
    lost."""
    user_id, slug, framework, code = row.user_id, row.exercise_slug, row.framework, row.code

    def store() -> None:
        draft = session.scalar(
            select(Draft).where(
                Draft.user_id == user_id,
                Draft.course_slug == course_slug,
                Draft.exercise_slug == slug,
                Draft.framework == framework,
            )
        )
        if draft is None:
            session.add(
                Draft(
                    user_id=user_id,
                    course_slug=course_slug,
                    exercise_slug=slug,
                    framework=framework,
                    code=code,
                )
            )
        else:
            draft.code, draft.updated_at = code, utcnow()
        session.commit()

    retry_conflicts(session, store)  # the editor's own save of the draft, at the same moment


def visible_submission(*, session: Session, user: User, submission_id: int) -> Submission | None:
    """The submission if this user may see it: its author, a site administrator, or staff
    (instructor or TA) of the offering it counts in; staff of another offering see nothing."""
    row = session.get(Submission, submission_id)
    if row is None:
        return None
    if row.user_id == user.id:
        return row
    mine = staff_of_work(
        session=session, user=user, offering_id=row.offering_id, course_slug=row.course_slug
    )
    return row if mine else None


def held_from(*, session: Session, user: User, row: Submission, now: dt.datetime) -> str | None:
    """Why its student may not read this submission's result now (an exam's answer before the
    exam's release), or None; staff who read another's work are never held."""
    if row.purpose == PRACTICE or row.user_id != user.id:
        return None
    return result_held(session=session, purpose=row.purpose, user_id=user.id, now=now)


def stop_experiment(*, session: Session, course: Course, user: User, submission_id: int) -> str:
    """Ask a queued or running experiment to stop; returns the status it had."""
    row = visible_submission(session=session, user=user, submission_id=submission_id)
    if row is None:
        raise SubmissionError(404, "There is no submission with that id.")
    exercise = course.exercise(row.exercise_slug)
    if exercise is None or exercise.meta.experiment is None:
        raise SubmissionError(
            400, "Only experiments can be stopped; other runs finish within seconds."
        )
    if row.status == "done":
        raise SubmissionError(409, "This run has already finished; its report is below.")
    live.request_stop(row.id)
    return row.status


def staff_view(*, session: Session, user: User, row: Submission) -> bool:
    """Whether this reader sees the submission as staff (hidden tests whole): a site
    administrator or staff of the offering it counts in; never by a global role."""
    return staff_of_work(
        session=session, user=user, offering_id=row.offering_id, course_slug=row.course_slug
    )


def hidden_tests_open(
    *, session: Session, course: Course, user: User, row: Submission, now: dt.datetime
) -> bool:
    """Whether this student may see the inputs and values of the exercise's hidden tests.

    A lock (a running exam) closes them here, so every page and the API agree.
    """
    exercise = course.exercise(row.exercise_slug)
    if exercise is None or exercise.meta.hidden_tests == "hidden":
        return False
    if lock_reason(
        session=session,
        user_id=user.id,
        course_slug=row.course_slug or first_course_slug(),  # the exercise's course
        exercise_slug=row.exercise_slug,
        what="hidden_tests",
        now=now,
    ):
        return False
    if exercise.meta.hidden_tests == "visible":
        return True
    due = effective_due(
        session=session,
        user_id=row.user_id,
        kind="exercise",
        slug=row.exercise_slug,
        due=exercise.meta.due,
        offering_id=row.offering_id,
    )
    return due is not None and now > due
