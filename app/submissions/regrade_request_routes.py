"""A student's regrade request: the API and the result page's form."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from app.submissions.models import Submission
from app.submissions.regrade_requests import MAX_REQUEST_CHARS, ask, request_json
from app.users.deps import CurrentUser
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["submissions"])


class RegradeRequestIn(BaseModel):
    """Body of a regrade request: what the student thinks was graded wrongly."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=MAX_REQUEST_CHARS, description="One or two sentences.")


def _own(session: SessionDep, user: CurrentUser, submission_id: int) -> Submission:
    row = session.get(Submission, submission_id)
    if row is None or row.user_id != user.id:
        raise HTTPException(404, "There is no submission with that id.")
    return row


@router.post(
    "/api/submissions/{submission_id}/regrade-request",
    status_code=201,
    responses=errors(401, 404, 409, 422),
)
def regrade_request_api(
    submission_id: RowId,
    body: Annotated[RegradeRequestIn, Body()],
    session: SessionDep,
    user: CurrentUser,
) -> dict[str, Any]:
    """Ask staff to look at this exercise's grade again (once per exercise)."""
    row = _own(session, user, submission_id)
    return request_json(ask(session=session, submission=row, user=user, text=body.text))


@router.post("/exercises/{slug}/results/{submission_id}/regrade-request", include_in_schema=False)
def regrade_request_form(
    slug: str,
    submission_id: RowId,
    session: SessionDep,
    user: CurrentUser,
    text: Annotated[str, Form()] = "",
) -> Response:
    """The result page's form; errors come back as the API's sentence (the page keeps none)."""
    row = _own(session, user, submission_id)
    if row.exercise_slug != slug:
        raise HTTPException(404, "There is no submission with that id for this exercise.")
    ask(session=session, submission=row, user=user, text=text)
    return RedirectResponse(f"/exercises/{slug}/results/{row.id}#regrade", status_code=303)
