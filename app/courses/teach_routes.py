"""A term sets itself up in the browser: an instructor starts a new offering of a course they
teach (and becomes its instructor), and a student types a join code on their home page."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.courses.service import request_registry
from app.offerings.models import OfferingRole
from app.offerings.service import OfferingError, create_offering, enroll, parse_day
from app.offerings.standing import instructs_course
from app.users.deps import CurrentUser
from app.users.models import User
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["offerings"])
NOT_TEACHING = (
    "Only an instructor of an offering of this course (or a site administrator) may start a "
    "new offering of it."
)


class NewOfferingIn(BaseModel):
    """Body of a new offering an instructor starts: its course, title and dates."""

    model_config = ConfigDict(extra="forbid")

    course: str = Field(max_length=100, description="The course's slug (GET /api/courses).")
    title: str = Field(max_length=200, description="e.g. 'Spring 2027, section A'.")
    starts_at: str | None = Field(default=None, description="First day, e.g. 2027-01-15.")
    ends_at: str | None = Field(default=None, description="Last day, e.g. 2027-05-15.")


def start_offering(
    request: Request, session: Session, user: User, body: NewOfferingIn
) -> dict[str, Any]:
    """Create the offering (closed, with a join code) and make its creator its instructor."""
    if not instructs_course(session=session, user=user, course_slug=body.course):
        raise HTTPException(403, NOT_TEACHING)
    try:
        offering = create_offering(
            session=session,
            course_slug=body.course,
            title=body.title,
            starts_at=parse_day(body.starts_at),
            ends_at=parse_day(body.ends_at),
            known_courses=request_registry(request).slugs(),
        )
    except OfferingError as exc:
        raise HTTPException(422, str(exc)[:1].upper() + str(exc)[1:] + ".") from exc
    enroll(session=session, offering=offering, user=user, role=OfferingRole.instructor)
    code = offering.join_code or ""
    return {
        "id": offering.id,
        "course": offering.course_slug,
        "title": offering.title,
        "join_code": code,
        "join_url": str(request.base_url).rstrip("/") + f"/join/{code}" if code else None,
        "url": f"/offerings/{offering.id}/instructor/settings",
    }


@router.post("/api/offerings", status_code=201, responses=errors(401, 403, 422))
def new_offering_api(
    body: Annotated[NewOfferingIn, Body()], request: Request, session: SessionDep, user: CurrentUser
) -> dict[str, Any]:
    """Start a new offering of a course you teach; you become its instructor."""
    return start_offering(request, session, user, body)


@router.post("/offerings/new", include_in_schema=False)
def new_offering_form(
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    course: Annotated[str, Form()] = "",
    title: Annotated[str, Form()] = "",
    starts_at: Annotated[str, Form()] = "",
    ends_at: Annotated[str, Form()] = "",
) -> Response:
    """The settings page's form: the new offering opens on its own settings page."""
    body = NewOfferingIn(
        course=course[:100], title=title[:200], starts_at=starts_at or None, ends_at=ends_at or None
    )
    made = start_offering(request, session, user, body)
    return RedirectResponse(f"{made['url']}?saved=created", status_code=303)


@router.post("/join", include_in_schema=False)
def join_by_typed_code(code: Annotated[str, Form()] = "") -> Response:
    """The home page's "enter a code" box: on to that code's invitation page."""
    cleaned = "".join(ch for ch in code.strip().upper() if ch.isalnum() or ch in "-_")[:40]
    if not cleaned:
        raise HTTPException(422, "Type the code your instructor gave you, e.g. 7KQ2-MX4P.")
    return RedirectResponse(f"/join/{cleaned}", status_code=303)
