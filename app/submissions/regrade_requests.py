"""Regrade requests: a student asks once per exercise, with a sentence, that staff look at a
grade again; staff answer in place, and a new score goes through an override (so the gradebook
and the LMS get it as they get any other)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.errors import DomainError
from app.models_base import utcnow
from app.submissions.models import PRACTICE, RegradeRequest, Submission
from app.users.models import User

MAX_REQUEST_CHARS = 2000


class RegradeRequestError(DomainError):
    """A request that cannot be taken; the status and sentence say why."""


def _words(text: str, *, what: str) -> str:
    words = text.strip()
    if not words:
        raise RegradeRequestError(422, f"Write {what} first: one or two sentences are enough.")
    if len(words) > MAX_REQUEST_CHARS:
        raise RegradeRequestError(422, f"Keep it under {MAX_REQUEST_CHARS} characters.")
    return words


def request_for(*, session: Session, submission: Submission) -> RegradeRequest | None:
    """The student's request about this exercise in this submission's offering, if any."""
    return session.scalar(
        select(RegradeRequest).where(*_same_item(submission)).order_by(RegradeRequest.id)
    )


def _same_item(submission: Submission) -> list[ColumnElement[bool]]:
    offering = (
        RegradeRequest.offering_id.is_(None)
        if submission.offering_id is None
        else RegradeRequest.offering_id == submission.offering_id
    )
    return [
        RegradeRequest.user_id == submission.user_id,
        RegradeRequest.exercise_slug == submission.exercise_slug,
        RegradeRequest.course_slug == submission.course_slug,
        offering,
    ]


def ask(*, session: Session, submission: Submission, user: User, text: str) -> RegradeRequest:
    """Record the student's request about their own graded submission; once per exercise."""
    if submission.user_id != user.id:
        raise RegradeRequestError(404, "There is no submission with that id.")
    if submission.purpose != PRACTICE:
        raise RegradeRequestError(
            409, "An exam's answers are regraded by its instructors: write to them directly."
        )
    if submission.status != "done" or submission.mode != "submit":
        raise RegradeRequestError(
            409, "Only a graded submission (Submit, not Run) can be looked at again."
        )
    words = _words(text, what="what you think was graded wrongly")
    if request_for(session=session, submission=submission) is not None:
        raise RegradeRequestError(409, ALREADY_ASKED)
    row = RegradeRequest(
        submission_id=submission.id,
        user_id=user.id,
        exercise_slug=submission.exercise_slug,
        course_slug=submission.course_slug,
        offering_id=submission.offering_id,
        text=words,
    )
    session.add(row)
    try:
        session.commit()
    except IntegrityError as exc:  # two clicks at once: the first one is the request
        session.rollback()
        raise RegradeRequestError(409, ALREADY_ASKED) from exc
    return row


ALREADY_ASKED = (
    "You have already asked for this exercise to be looked at again; its answer appears with "
    "your submission."
)


def answer(*, session: Session, request: RegradeRequest, by: User, text: str) -> RegradeRequest:
    """Staff's answer, shown to the student in place (a score change is an override)."""
    request.answer = _words(text, what="your answer")
    request.answered_by, request.answered_name = by.id, by.name or "Course staff"
    request.answered_at = utcnow()
    session.commit()
    return request


def request_json(request: RegradeRequest) -> dict[str, Any]:
    """A request as both the student and staff read it."""
    return {
        "id": request.id,
        "submission": request.submission_id,
        "exercise": request.exercise_slug,
        "text": request.text,
        "at": request.created_at.isoformat(),
        "answer": request.answer,
        "answered_by": request.answered_name or None,
        "answered_at": request.answered_at.isoformat() if request.answered_at else None,
        "new_score": request.new_score,
    }
