"""Staff comments on a submission, on a line or on the whole, without changing its score."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from app.content.service import CourseDep
from app.instructor.overrides_routes import submission_here
from app.instructor.students_routes import get_person, student_page
from app.offerings.access import StaffUser
from app.offerings.place import PlaceDep
from app.submissions.comments import (
    MAX_COMMENT_CHARS,
    CommentError,
    add_comment,
    comment_json,
)
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])
FormStr = Annotated[str, Form()]


class CommentIn(BaseModel):
    """Body of the comment API: the words, and the code's line they are about (or null)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=MAX_COMMENT_CHARS, description="Shown to the student.")
    line: int | None = Field(default=None, ge=1, description="1-based line of the code, or null.")


@router.post(
    "/api/instructor/submissions/{submission_id}/comments",
    status_code=201,
    responses=errors(401, 403, 404, 422),
)
def comment_api(
    submission_id: RowId,
    body: Annotated[CommentIn, Body()],
    session: SessionDep,
    user: StaffUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Write to the student about this submission; its score stays as it is."""
    row = submission_here(session, submission_id, place)
    comment = add_comment(
        session=session, submission=row, author=user, text=body.text, line=body.line
    )
    return comment_json(comment)


@router.post("/instructor/submissions/{submission_id}/comments", include_in_schema=False)
def comment_form(
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
    text: FormStr = "",
    line: FormStr = "",
) -> Response:
    """The student page's comment form: the words and, optionally, a line number."""
    row = submission_here(session, submission_id, place)
    person = get_person(session, row.user_id, place)
    try:
        number = None
        if line.strip():
            if not line.strip().isdigit():
                raise CommentError("Give the line as a number, e.g. 12, or leave it empty.")
            number = int(line.strip())
        add_comment(session=session, submission=row, author=user, text=text, line=number)
    except CommentError as exc:
        return student_page(
            request,
            session=session,
            course=course,
            user=user,
            person=person,
            error=f"Submission {row.id}: {exc}",
            status_code=400,
            place=place,
        )
    target = f"{place.prefix}/instructor/students/{person.id}?saved=comment"
    return RedirectResponse(f"{target}#submission-{row.id}", status_code=303)
