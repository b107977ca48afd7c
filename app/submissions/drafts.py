"""Students' saved editor contents, one per course's exercise and framework, so no work is lost.

Another course may have an exercise of the same slug, with an editor of its own: every read and
write names the course (`course_slug`)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.content.loader import Course, Exercise
from app.models_base import as_utc, utcnow
from app.offerings.standing import staff_of_course
from app.submissions.models import Draft
from app.submissions.service import SubmissionError, visible_submission
from app.users.models import User


def check_target(
    *,
    session: Session,
    course: Course,
    course_slug: str,
    user: User,
    exercise: str,
    framework: str | None,
) -> tuple[Exercise, str]:
    """The exercise and framework a draft belongs to; 404 or 422 when there is no such pair
    (a draft exercise exists only for its course's staff)."""
    found = course.exercise(exercise)
    if found is None or (
        found.meta.draft
        and not staff_of_course(session=session, user=user, course_slug=course_slug)
    ):
        raise SubmissionError(404, f"There is no exercise called '{exercise}'.")
    chosen = framework or found.meta.default_framework
    if chosen not in found.meta.frameworks:
        offered = ", ".join(found.meta.frameworks)
        raise SubmissionError(
            422, f"This exercise is not offered in '{chosen}'; choose one of: {offered}."
        )
    return found, chosen


def check_size(code: str, max_bytes: int) -> None:
    """413 with the sizes in words when the code is over the limit."""
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise SubmissionError(
            413,
            f"Your code is {size // 1024} KB; the limit is {max_bytes // 1024} KB. "
            "Your text is still in the editor: shorten it and try again.",
        )


# Built once: every exercise page view reads it (issue 23).
_DRAFT = select(Draft).where(
    Draft.user_id == bindparam("user_id"),
    Draft.course_slug == bindparam("course_slug"),
    Draft.exercise_slug == bindparam("exercise"),
    Draft.framework == bindparam("framework"),
)


def get_draft(
    *, session: Session, user_id: int, course_slug: str, exercise: str, framework: str
) -> Draft | None:
    """This student's saved code for one course's exercise and one framework."""
    params = {
        "user_id": user_id,
        "course_slug": course_slug,
        "exercise": exercise,
        "framework": framework,
    }
    return session.scalar(_DRAFT, params)


def save_draft(
    *, session: Session, user_id: int, course_slug: str, exercise: str, framework: str, code: str
) -> Draft:
    """Insert or replace the draft (a concurrent first save from another tab is retried)."""
    for _ in range(2):
        row = get_draft(
            session=session,
            user_id=user_id,
            course_slug=course_slug,
            exercise=exercise,
            framework=framework,
        )
        if row is None:
            row = Draft(
                user_id=user_id,
                course_slug=course_slug,
                exercise_slug=exercise,
                framework=framework,
                code=code,
            )
            session.add(row)
        else:
            row.code = code
            row.updated_at = utcnow()
        try:
            session.commit()
            return row
        except IntegrityError:
            session.rollback()
    raise SubmissionError(409, "Your draft was saved from two places at once; try again.")


@dataclass(frozen=True)
class EditorState:
    """What the exercise page's editor starts with, and where that text came from."""

    code: str
    source: str  # "starter", "draft" or "submission"
    saved_at: str | None
    click_key: str


def editor_state(
    *,
    session: Session,
    user: User | None,
    course_slug: str,
    exercise: Exercise,
    framework: str,
    from_submission: int | None,
) -> EditorState:
    """A chosen earlier submission, else the draft saved in this course, else the starter."""
    key = secrets.token_urlsafe(12)  # one per page view: a double-posted no-JS form is one attempt
    slug = exercise.meta.slug
    if user is not None and from_submission is not None:
        row = visible_submission(session=session, user=user, submission_id=from_submission)
        wanted = (course_slug, slug, framework)  # this course's exercise: not another's
        if row is not None and (row.course_slug, row.exercise_slug, row.framework) == wanted:
            return EditorState(row.code, "submission", None, key)
    if user is not None:
        draft = get_draft(
            session=session,
            user_id=user.id,
            course_slug=course_slug,
            exercise=slug,
            framework=framework,
        )
        if draft is not None:
            saved = as_utc(draft.updated_at).isoformat(timespec="seconds")
            return EditorState(draft.code, "draft", saved, key)
    return EditorState(exercise.starters[framework], "starter", None, key)
