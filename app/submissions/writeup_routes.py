"""A lab's write-up, written or rewritten by its student until a person grades it (the lab's
editor sends code alone; the result page's form and this API attach the text)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from app.content.service import CourseDep
from app.courses.service import content_of
from app.db import serialize
from app.submissions.models import RubricGrade, Submission, graded_by_hand
from app.users.deps import CurrentUser
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["submissions"])
MAX_WRITEUP_CHARS = 20_000
NOT_A_LAB = "Only a lab takes a write-up; send this exercise's code alone."
GRADED = "A person already graded this write-up; ask for a regrade to have it looked at again."


class WriteupIn(BaseModel):
    """Body of a lab's write-up: what the student found, in their words."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        max_length=MAX_WRITEUP_CHARS, description="Plain text; blank lines part paragraphs."
    )


def save_writeup(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
    submission_id: int,
    text: str,
) -> Submission:
    """Store the write-up on the student's own lab run, unless a person graded it already."""
    row = session.get(Submission, submission_id)
    if row is None or row.user_id != user.id:
        raise HTTPException(404, "There is no submission with that id.")
    found = content_of(request, row.course_slug, course).exercise(row.exercise_slug)
    if found is None or found.meta.entry.kind != "experiment":
        raise HTTPException(422, NOT_A_LAB)
    serialize(session, graded_by_hand(row.id))  # a TA grading it now: their grade comes first
    if session.get(RubricGrade, row.id) is not None:
        raise HTTPException(409, GRADED)
    row.writeup = text.strip()[:MAX_WRITEUP_CHARS] or None
    session.commit()
    return row


@router.put("/api/submissions/{submission_id}/writeup", responses=errors(401, 404, 409, 422))
def writeup_api(
    submission_id: RowId,
    body: Annotated[WriteupIn, Body()],
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
) -> dict[str, Any]:
    """Write (or rewrite) your lab run's write-up; a person grades it with the lab's rubric."""
    row = save_writeup(request, session, course, user, submission_id, body.text)
    return {"id": row.id, "writeup": row.writeup}


@router.post("/exercises/{slug}/results/{submission_id}/writeup", include_in_schema=False)
def writeup_form(
    slug: str,
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
    text: Annotated[str, Form(max_length=MAX_WRITEUP_CHARS)] = "",
) -> Response:
    """The result page's form, then the page again at the write-up."""
    row = save_writeup(request, session, course, user, submission_id, text)
    if row.exercise_slug != slug:
        raise HTTPException(404, "There is no submission with that id for this exercise.")
    return RedirectResponse(f"/exercises/{slug}/results/{row.id}#writeup", status_code=303)
