"""Staff's queue of regrade requests in their offering, answered in place."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.instructor.overrides import InstructorError, set_override
from app.instructor.web import page
from app.offerings.access import StaffUser, work_here
from app.offerings.place import Place, PlaceDep
from app.submissions.models import RegradeRequest, Submission
from app.submissions.regrade_requests import (
    MAX_REQUEST_CHARS,
    RegradeRequestError,
    answer,
    request_json,
)
from app.users.models import User
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])
FormStr = Annotated[str, Form()]


def _queue(session: Session, place: Place) -> list[tuple[RegradeRequest, User]]:
    """This offering's requests, unanswered first, oldest first within each."""
    query = (
        select(RegradeRequest, User)
        .join(User, User.id == RegradeRequest.user_id)
        .where(work_here(session, RegradeRequest.offering_id, place))
        .order_by(RegradeRequest.answered_at.is_not(None), RegradeRequest.id)
    )
    return [(r, u) for r, u in session.execute(query)]


def _request_here(session: Session, request_id: int, place: Place) -> RegradeRequest:
    """The request, when it belongs to this request's offering (else a plain 404)."""
    found = session.scalar(
        select(RegradeRequest).where(
            RegradeRequest.id == request_id, work_here(session, RegradeRequest.offering_id, place)
        )
    )
    if found is None:
        raise HTTPException(404, "There is no regrade request with that id.")
    return found


def _settle(
    session: Session, found: RegradeRequest, by: User, text: str, score: float | None
) -> RegradeRequest:
    """Answer, and change the score through an override (the gradebook and the LMS follow)."""
    if score is not None:
        submission = session.get(Submission, found.submission_id)
        assert submission is not None  # the request is deleted with its submission
        set_override(
            session=session, submission=submission, score=score, reason=text, instructor=by
        )
        found.new_score = score
    return answer(session=session, request=found, by=by, text=text)


@router.get("/api/instructor/regrade-requests", responses=errors(401, 403))
def queue_api(session: SessionDep, user: StaffUser, place: PlaceDep) -> list[dict[str, Any]]:
    """Who asked, about what and when; unanswered first."""
    return [
        request_json(r) | {"student": u.name or u.email, "user_id": u.id}
        for r, u in _queue(session, place)
    ]


class AnswerIn(BaseModel):
    """Staff's answer, and a new score (0 to 1) when the grade changes."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=MAX_REQUEST_CHARS, description="Shown to the student.")
    score: float | None = Field(default=None, description="New score 0-1, or null to keep it.")


@router.post(
    "/api/instructor/regrade-requests/{request_id}/answer", responses=errors(401, 403, 404, 422)
)
def answer_api(
    request_id: RowId,
    body: Annotated[AnswerIn, Body()],
    session: SessionDep,
    user: StaffUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Answer in place; the student sees it with their submission and on their home page."""
    found = _request_here(session, request_id, place)
    return request_json(_settle(session, found, user, body.text, body.score))


@router.get("/instructor/regrade-requests", include_in_schema=False)
def queue_page(request: Request, session: SessionDep, user: StaffUser, place: PlaceDep) -> Response:
    """The queue, with an answer form on each open request."""
    return page(request, "instructor/regrade_requests.html", user, lines=_queue(session, place))


@router.post("/instructor/regrade-requests/{request_id}/answer", include_in_schema=False)
def answer_form(
    request_id: RowId,
    request: Request,
    session: SessionDep,
    user: StaffUser,
    place: PlaceDep,
    text: FormStr = "",
    percent: FormStr = "",
) -> Response:
    """The queue's answer form: words, and optionally a new score as a percentage."""
    found = _request_here(session, request_id, place)
    try:
        score = None
        if percent.strip():
            try:
                score = float(percent.strip().rstrip("%")) / 100
            except ValueError as exc:
                raise InstructorError("Type the new score as a percentage, e.g. 80.") from exc
        _settle(session, found, user, text, score)
    except (InstructorError, RegradeRequestError) as exc:
        session.rollback()
        return page(
            request,
            "instructor/regrade_requests.html",
            user,
            status_code=400,
            lines=_queue(session, place),
            error=f"Request {request_id}: {exc}",
        )
    target = f"{place.prefix}/instructor/regrade-requests#request-{request_id}"
    return RedirectResponse(target, status_code=303)
