"""Comments staff write on a submission (on one line of the code, or on the whole): the student
reads them on the result page, in the API and as a notice on their home page."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.errors import DomainError
from app.submissions.models import Submission, SubmissionComment
from app.users.models import User

MAX_COMMENT_CHARS = 4000


class CommentError(DomainError, ValueError):
    """A comment that cannot be kept (422); the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(422, message)


def _checked_line(line: int | None, code: str) -> int | None:
    if line is None:
        return None
    count = max(1, len(code.splitlines()))
    if not 1 <= line <= count:
        raise CommentError(f"Line {line} is not in this code; it has lines 1 to {count}.")
    return line


def add_comment(
    *, session: Session, submission: Submission, author: User, text: str, line: int | None
) -> SubmissionComment:
    """Keep a comment for the student (the score is not changed; an override does that)."""
    words = text.strip()
    if not words:
        raise CommentError("Write the comment first; an empty one would tell the student nothing.")
    if len(words) > MAX_COMMENT_CHARS:
        raise CommentError(f"A comment must be at most {MAX_COMMENT_CHARS} characters long.")
    comment = SubmissionComment(
        submission_id=submission.id,
        author_id=author.id,
        author_name=author.name or "Course staff",
        text=words,
        line=_checked_line(line, submission.code),
    )
    session.add(comment)
    session.commit()
    return comment


def comment_json(comment: SubmissionComment) -> dict[str, Any]:
    """One comment as the API shows it (`../shared/interfaces.md`: by, text, line, at)."""
    return {
        "id": comment.id,
        "by": comment.author_name,
        "text": comment.text,
        "line": comment.line,
        "at": comment.created_at.isoformat(),
    }


def comments_on(*, session: Session, submission_id: int) -> list[SubmissionComment]:
    """A submission's comments, oldest first."""
    query = select(SubmissionComment).where(SubmissionComment.submission_id == submission_id)
    return list(session.scalars(query.order_by(SubmissionComment.id)))


def comments_by_submission(
    *, session: Session, submission_ids: list[int]
) -> dict[int, list[SubmissionComment]]:
    """Every comment on these submissions, oldest first (a staff page of many submissions)."""
    if not submission_ids:
        return {}
    found: dict[int, list[SubmissionComment]] = {}
    query = select(SubmissionComment).where(SubmissionComment.submission_id.in_(submission_ids))
    for comment in session.scalars(query.order_by(SubmissionComment.id)):
        found.setdefault(comment.submission_id, []).append(comment)
    return found
