"""What staff wrote to a student lately, from every place they write: comments, an override's
reason, answers to regrade requests and replies to problem reports (the home page's notices)."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, String, bindparam, func, literal, select, union_all
from sqlalchemy.orm import Session

from app.courses.first import first_course_slug
from app.db import read_rows
from app.hooks import result_held
from app.models_base import utcnow
from app.offerings.models import Offering
from app.problems.models import ProblemReport
from app.submissions.models import PRACTICE, RegradeRequest, Submission, SubmissionComment

WORDS = {
    "comment": "A comment",
    "override": "A new score, with a reason",
    "regrade": "An answer to your regrade request",
    "report:exercise": "A reply to your report",
    "report:quiz": "A reply to your report",
}


@dataclass(frozen=True)
class StaffNote:
    """Something staff wrote to a student lately, and where it is about."""

    kind: str  # a key of WORDS
    submission_id: int
    exercise: str
    course: str
    text: str
    at: dt.datetime

    def path(self) -> str:
        """Where the note is about, inside its course."""
        if self.kind == "report:quiz":
            return f"/lessons/{self.exercise}#quiz"
        if self.kind == "report:exercise":
            return f"/exercises/{self.exercise}"
        return f"/exercises/{self.exercise}/results/{self.submission_id}"


def staff_notes(
    *, session: Session, user_id: int, since: dt.datetime, limit: int = 5
) -> list[StaffNote]:
    """What staff wrote to this student since then, newest first (one statement: a union)."""
    values = {"notes_user_id": user_id, "notes_since": since, "notes_course": first_course_slug()}
    found = read_rows(session, _notes(limit), values)
    now = utcnow()
    return [
        StaffNote(*row[:6])
        for row in found
        if row[6] == PRACTICE  # an exam's answer: only once the exam released its results
        or not result_held(session=session, purpose=row[6], user_id=user_id, now=now)
    ]


@functools.cache
def _notes(limit: int) -> Select[Any]:
    """The union, built once: building it per home page cost more than running it (issue 54)."""
    user_id: Any = bindparam("notes_user_id")
    since: Any = bindparam("notes_since")
    # A report filed outside any offering is about the first course (CONTENT_DIR's).
    first_course: Any = bindparam("notes_course", type_=String())
    practice: Any = literal(PRACTICE, String())
    comments = (
        select(
            literal("comment", String()),
            Submission.id,
            Submission.exercise_slug,
            Submission.course_slug,
            SubmissionComment.text,
            SubmissionComment.created_at,
            Submission.purpose,
        )
        .join(Submission, Submission.id == SubmissionComment.submission_id)
        .where(Submission.user_id == user_id, SubmissionComment.created_at >= since)
    )
    overrides = select(
        literal("override", String()),
        Submission.id,
        Submission.exercise_slug,
        Submission.course_slug,
        func.coalesce(Submission.override_reason, ""),
        Submission.override_at,
        Submission.purpose,
    ).where(
        Submission.user_id == user_id,
        Submission.override_score.is_not(None),
        Submission.override_at >= since,
    )
    answers = select(
        literal("regrade", String()),
        RegradeRequest.submission_id,
        RegradeRequest.exercise_slug,
        RegradeRequest.course_slug,
        func.coalesce(RegradeRequest.answer, ""),
        RegradeRequest.answered_at,
        practice,  # a regrade request is refused for an exam's answer
    ).where(RegradeRequest.user_id == user_id, RegradeRequest.answered_at >= since)
    replies = (
        select(
            literal("report:", String()) + ProblemReport.kind,
            func.coalesce(ProblemReport.submission_id, 0),
            ProblemReport.slug,
            func.coalesce(Offering.course_slug, first_course),
            func.coalesce(ProblemReport.reply, ""),
            ProblemReport.resolved_at,
            practice,
        )
        .outerjoin(Offering, Offering.id == ProblemReport.offering_id)
        .where(
            ProblemReport.user_id == user_id,
            ProblemReport.reply.is_not(None),
            ProblemReport.resolved_at >= since,
        )
    )
    both = union_all(comments, overrides, answers, replies).subquery()
    return select(both).order_by(both.c[5].desc()).limit(limit)
