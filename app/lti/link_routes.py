"""The LMS link of an offering: its page and its JSON API (the offering's instructors and site
administrators only; teaching assistants cannot change LMS settings)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.lti.links import (
    LinkError,
    LmsCourse,
    link_seen,
    link_typed,
    linkable,
    linked,
    unlink,
)
from app.lti.registry import platforms
from app.offerings.access import InstructorMember, Member
from app.offerings.place import Place, PlaceDep
from app.web.api import RowId, errors
from app.web.request_session import SessionDep
from app.web.templating import render, staff_base

router = APIRouter(tags=["instructor"])
DONE = {
    "linked": "The LMS course is linked to this offering.",
    "removed": "The link is removed.",
}


def _course_json(found: LmsCourse) -> dict[str, Any]:
    return {
        "id": found.context.id,
        "issuer": found.platform.issuer,
        "platform": found.platform.id,
        "deployment_id": found.context.deployment_id,
        "context_id": found.context.context_id,
        "title": found.context.title,
        "offering": None if found.offering is None else found.offering.id,
        "offering_title": None if found.offering is None else found.offering.title,
    }


def _state(session: Session, member: Member) -> dict[str, Any]:
    offering = member.offering.id
    return {
        "offering": offering,
        "links": [_course_json(c) for c in linked(session=session, offering_id=offering)],
        "seen": [
            _course_json(c)
            for c in linkable(session=session, offering_id=offering, user=member.user)
        ],
        "platforms": [
            {"id": p.id, "issuer": p.issuer, "client_id": p.client_id, "deployments": ids}
            for p, ids in platforms(session=session)
        ],
    }


def _page(
    request: Request,
    session: Session,
    member: Member,
    *,
    place: Place,
    status: int = 200,
    error: str = "",
    values: dict[str, str] | None = None,
) -> Response:
    return render(
        request,
        "lti/offering_link.html",
        status_code=status,
        user=member.user,
        offering=member.offering,
        state=_state(session, member),
        prefix=staff_base(request),
        error=error,
        values=values or {},
        done=DONE.get(request.query_params.get("done", ""), ""),
    )


@router.get("/instructor/lms", include_in_schema=False)
def link_page(
    request: Request, session: SessionDep, member: InstructorMember, place: PlaceDep
) -> Response:
    """The LMS courses linked to this offering, and the forms to link one or remove a link."""
    return _page(request, session, member, place=place)


def _number(text: str) -> int | None:
    return int(text) if text.strip().isdigit() and len(text.strip()) <= 9 else None


@router.post("/instructor/lms/link", include_in_schema=False)
async def link_form(
    request: Request, session: SessionDep, member: InstructorMember, place: PlaceDep
) -> Response:
    """Link an LMS course seen in launches (`context`), or one typed (`platform`,
    `deployment_id`, `context_id`)."""
    form = await request.form()
    names = ("context", "platform", "deployment_id", "context_id")
    values = {name: str(form.get(name) or "") for name in names}
    seen, platform = _number(values["context"]), _number(values["platform"])
    try:
        if seen is not None:
            link_seen(
                session=session, offering_id=member.offering.id, context_id=seen, user=member.user
            )
        elif platform is not None:
            link_typed(
                session=session,
                offering_id=member.offering.id,
                platform_id=platform,
                deployment_id=values["deployment_id"],
                context_id=values["context_id"],
                user=member.user,
            )
        else:
            raise LinkError(422, "Choose an LMS course seen in launches, or type one.")
    except LinkError as exc:
        session.rollback()
        return _page(
            request,
            session,
            member,
            status=exc.status,
            error=exc.message,
            values=values,
            place=place,
        )
    return RedirectResponse(f"{place.prefix}/instructor/lms?done=linked", status_code=303)


@router.post("/instructor/lms/contexts/{context_id}/unlink", include_in_schema=False)
def unlink_form(
    request: Request,
    session: SessionDep,
    member: InstructorMember,
    context_id: RowId,
    place: PlaceDep,
) -> Response:
    """Remove one LMS course's link to this offering."""
    try:
        unlink(session=session, offering_id=member.offering.id, context_id=context_id)
    except LinkError as exc:
        return _page(request, session, member, status=exc.status, error=exc.message, place=place)
    return RedirectResponse(f"{place.prefix}/instructor/lms?done=removed", status_code=303)


@router.get("/api/instructor/lms", responses=errors(401, 403))
def link_api(session: SessionDep, member: InstructorMember) -> dict[str, Any]:
    """This offering's LMS courses (`links`), those seen in launches it may link (`seen`) and
    the registered LMSs with their deployments (`platforms`)."""
    return _state(session, member)


class LinkIn(BaseModel):
    """Either `context` (an LMS course seen in launches, its id here), or `platform`,
    `deployment_id` and `context_id` as the LMS names them."""

    model_config = ConfigDict(extra="forbid")

    context: int | None = Field(default=None, ge=1, le=2**31 - 1)
    platform: int | None = Field(default=None, ge=1, le=2**31 - 1)
    deployment_id: str = Field(default="", max_length=255)
    context_id: str = Field(default="", max_length=255)

    @model_validator(mode="after")
    def _one_way(self) -> LinkIn:
        if (self.context is None) == (self.platform is None):
            raise ValueError("give either context, or platform with deployment_id and context_id")
        return self


@router.post("/api/instructor/lms/links", responses=errors(401, 403, 404, 422))
def link_create_api(
    body: Annotated[LinkIn, Body()], session: SessionDep, member: InstructorMember
) -> dict[str, Any]:
    """Link an LMS course to this offering; its launches enrol here and its grades come from
    the work done here."""
    if body.platform is None:
        link_seen(
            session=session,
            offering_id=member.offering.id,
            context_id=body.context or 0,
            user=member.user,
        )
    else:
        link_typed(
            session=session,
            offering_id=member.offering.id,
            platform_id=body.platform,
            deployment_id=body.deployment_id,
            context_id=body.context_id,
            user=member.user,
        )
    return _state(session, member)


@router.delete("/api/instructor/lms/links/{context_id}", responses=errors(401, 403, 404, 422))
def link_delete_api(
    context_id: RowId, session: SessionDep, member: InstructorMember
) -> dict[str, Any]:
    """Remove one LMS course's link to this offering."""
    unlink(session=session, offering_id=member.offering.id, context_id=context_id)
    return _state(session, member)
