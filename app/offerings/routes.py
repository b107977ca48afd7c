"""Joining an offering (invitation code, instructor's roster), and the offerings one is in."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.db import SessionDep
from app.offerings.access import InstructorMember
from app.offerings.models import STAFF, Offering
from app.offerings.roster import apply_roster, parse_roster
from app.offerings.service import Membership, OfferingError, join_by_code, memberships
from app.users.deps import CurrentUser, OptionalUser
from app.users.models import User
from app.web.api import errors
from app.web.templating import render

router = APIRouter()


class JoinIn(BaseModel):
    """An invitation code as the instructor gave it (case and spaces do not matter)."""

    code: str = Field(min_length=1, max_length=40)


def membership_json(found: Membership) -> dict[str, Any]:
    """One offering as its member sees it, with where its pages start."""
    offering = found.offering
    staff = found.role in STAFF
    return {
        "id": offering.id,
        "course": offering.course_slug,
        "title": offering.title,
        "role": found.role.value,
        "url": f"/offerings/{offering.id}/instructor/gradebook" if staff else "/",
    }


def my_offerings(*, session: Session, user: User | None) -> list[dict[str, Any]]:
    """For the home page: the offerings the logged-in person is in (none for a visitor).

    Read with the page's own session: a second connection per page is what made pages wait
    on each other for connections under a class's load (issue 23).
    """
    if user is None:
        return []
    return [membership_json(m) for m in memberships(session=session, user=user)]


@router.get("/api/offerings", tags=["offerings"], responses=errors(401))
def list_mine(session: SessionDep, user: CurrentUser) -> list[dict[str, Any]]:
    """The offerings the caller is enrolled in, newest first, with their role in each."""
    return [membership_json(m) for m in memberships(session=session, user=user)]


@router.post("/api/offerings/join", tags=["offerings"], responses=errors(401, 404, 422))
def join_api(body: JoinIn, session: SessionDep, user: CurrentUser) -> dict[str, Any]:
    """Join an offering as a student with its invitation code."""
    offering = join_by_code(session=session, user=user, code=body.code)
    found = next(m for m in memberships(session=session, user=user) if m.offering.id == offering.id)
    return membership_json(found)


def _offering_for_code(session: SessionDep, code: str) -> Offering:
    cleaned = code.strip().upper()[:40]
    found = session.scalar(select(Offering).where(Offering.join_code == cleaned))
    if found is None or not cleaned:
        raise OfferingError(
            "this invitation link is not valid (it may have been replaced); ask your instructor",
            status=404,
        )
    return found


@router.get("/join/{code}", include_in_schema=False)
def join_page(code: str, request: Request, session: SessionDep, user: OptionalUser) -> Response:
    """The invitation link: log in first, then confirm joining with one button."""
    offering = _offering_for_code(session, code)
    if user is None:
        return RedirectResponse(f"/login?next={quote('/join/' + code, safe='/')}", status_code=303)
    return render(request, "offerings/join.html", user=user, offering=offering, code=code)


@router.post("/join/{code}", include_in_schema=False)
def join_form(code: str, session: SessionDep, user: CurrentUser) -> Response:
    """Join as a student (staff already there keep their role) and go to the course."""
    _offering_for_code(session, code)
    join_by_code(session=session, user=user, code=code)  # 404 if replaced since the page
    return RedirectResponse("/?joined=1", status_code=303)


class RosterIn(BaseModel):
    """A roster as CSV text: a header line `email,name,role`, then one person a line."""

    csv: str = Field(min_length=1, max_length=1_000_000)


@router.post("/api/instructor/roster", tags=["instructor"], responses=errors(401, 403, 422))
def upload_roster(body: RosterIn, session: SessionDep, member: InstructorMember) -> dict[str, Any]:
    """Enrol everyone of the roster in this offering (all lines checked first, or none kept)."""
    lines = parse_roster(body.csv)
    offering = session.merge(member.offering)
    result = apply_roster(session=session, offering=offering, lines=lines)
    return {"offering": offering.id, "enrolled": result.enrolled, "created": result.created}
