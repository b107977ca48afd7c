"""Joining an offering (invitation code, instructor's roster), and the offerings one is in."""

from __future__ import annotations

import csv
import io
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.offerings.access import (
    InstructorMember,
    Member,
    OfferingAccessError,
    is_member_here,
)
from app.offerings.invitations import mail_links
from app.offerings.mine import MembershipRow, membership_rows
from app.offerings.models import STAFF, Offering
from app.offerings.passwords import LinkRefused, link_for
from app.offerings.place import Place, PlaceDep
from app.offerings.roster import RosterResult, apply_roster, parse_roster
from app.offerings.service import OfferingError, join_by_code
from app.users.deps import CurrentUser, OptionalUser
from app.users.mail import configured
from app.users.models import User
from app.users.password_links import PasswordLink, make_link
from app.users.ratelimit import AuthLimiterDep, FailureLimiter, minutes_text
from app.web.api import RowId, errors
from app.web.request_session import SessionDep
from app.web.templating import render, staff_base

router = APIRouter()


class JoinIn(BaseModel):
    """An invitation code as the instructor gave it (case and spaces do not matter)."""

    code: str = Field(min_length=1, max_length=40)


def membership_json(found: MembershipRow) -> dict[str, Any]:
    """One offering as its member sees it, with where its pages start."""
    staff = found.role in STAFF
    return {
        "id": found.offering_id,
        "course": found.course_slug,
        "title": found.title,
        "role": found.role.value,
        "url": f"/offerings/{found.offering_id}/instructor/gradebook" if staff else "/",
    }


def my_offerings(*, session: Session, user: User | None) -> list[dict[str, Any]]:
    """For the home page: the offerings the logged-in person is in (none for a visitor).

    Read with the page's own session: a second connection per page is what made pages wait
    on each other for connections under a class's load (issue 23).
    """
    if user is None:
        return []
    return [membership_json(m) for m in membership_rows(session=session, user_id=user.id)]


@router.get("/api/offerings", tags=["offerings"], responses=errors(401))
def list_mine(session: SessionDep, user: CurrentUser) -> list[dict[str, Any]]:
    """The offerings the caller is enrolled in, newest first, with their role in each."""
    return [membership_json(m) for m in membership_rows(session=session, user_id=user.id)]


def _join_limited(
    request: Request, session: Session, user: User, code: str, limiter: FailureLimiter
) -> Offering:
    """Join by code; wrong codes count as failed logins do (per address and per account), so
    32^8 codes cannot be tried one after another."""
    keys = [
        f"join:ip:{request.client.host if request.client else 'unknown'}",
        f"join:user:{user.id}",
    ]
    wait = limiter.retry_after(keys)
    if wait > 0:
        raise OfferingError(
            f"too many attempts. Please try again in {minutes_text(wait)}", status=429
        )
    try:
        return join_by_code(session=session, user=user, code=code)
    except OfferingError:
        limiter.record_failure(keys)
        raise


@router.post("/api/offerings/join", tags=["offerings"], responses=errors(401, 404, 422, 429))
def join_api(
    body: JoinIn,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    limiter: AuthLimiterDep,
) -> dict[str, Any]:
    """Join an offering as a student with its invitation code (wrong codes are rate-limited)."""
    offering = _join_limited(request, session, user, body.code, limiter)
    mine = membership_rows(session=session, user_id=user.id)
    found = next(m for m in mine if m.offering_id == offering.id)
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
def join_page(
    code: str,
    request: Request,
    session: SessionDep,
    user: OptionalUser,
    limiter: AuthLimiterDep,
) -> Response:
    """The invitation link: log in first, then confirm joining with one button."""
    keys = [f"join:ip:{request.client.host if request.client else 'unknown'}"]
    wait = limiter.retry_after(keys)
    if wait > 0:
        raise OfferingError(
            f"too many attempts. Please try again in {minutes_text(wait)}", status=429
        )
    try:
        offering = _offering_for_code(session, code)
    except OfferingError:
        limiter.record_failure(keys)
        raise
    if user is None:
        return RedirectResponse(f"/login?next={quote('/join/' + code, safe='/')}", status_code=303)
    return render(request, "offerings/join.html", user=user, offering=offering, code=code)


@router.post("/join/{code}", include_in_schema=False)
def join_form(
    code: str, request: Request, session: SessionDep, user: CurrentUser, limiter: AuthLimiterDep
) -> Response:
    """Join as a student (staff already there keep their role) and go to the course."""
    _join_limited(request, session, user, code, limiter)  # 404 if replaced since the page
    return RedirectResponse("/?joined=1", status_code=303)


class RosterIn(BaseModel):
    """A roster as CSV text: a header line `email,name,role`, then one person a line."""

    csv: str = Field(min_length=1, max_length=1_000_000)


def link_json(request: Request, link: PasswordLink) -> dict[str, Any]:
    """A set-password link as the instructor hands it on: whose, the full URL, until when."""
    return {
        "user_id": link.user_id,
        "email": link.email,
        "url": str(request.base_url).rstrip("/") + link.path,
        "expires_at": link.expires_at.isoformat(),
    }


def mailed_links(
    request: Request, offering: Offering, links: list[PasswordLink]
) -> list[dict[str, Any]]:
    """Each link as JSON with `mail`: whether it reached its owner ("sent to a@b"), or why not
    and to copy it. Called after the commit, so a failed mail loses nothing."""
    shown = [link_json(request, link) for link in links]
    site = str(request.base_url).rstrip("/")
    pairs = [(link, item["url"]) for link, item in zip(links, shown, strict=True)]
    for item, status in zip(
        shown, mail_links(offering=offering, links=pairs, site=site), strict=True
    ):
        item["mail"] = status
    return shown


def _upload(session: Session, member: Member, text: str) -> tuple[Offering, RosterResult]:
    lines = parse_roster(text)  # a RosterError is a 422 with its sentence (app/web/errors.py)
    offering = session.merge(member.offering)
    return offering, apply_roster(session=session, offering=offering, lines=lines)


@router.post("/api/instructor/roster", tags=["instructor"], responses=errors(401, 403, 422))
def upload_roster(
    body: RosterIn, request: Request, session: SessionDep, member: InstructorMember
) -> dict[str, Any]:
    """Enrol everyone of the roster in this offering (all lines checked first, or none kept).

    The reply says nothing of which e-mails had accounts: `password_links` holds a one-time link
    for every person listed (valid PASSWORD_LINK_HOURS), mailed to them when SMTP is set up
    (`mail` says "sent to a@b" or why not: then copy the link). A link sets a password only for an
    account whose owner has not chosen one and that holds no place elsewhere; to anyone else
    it says to sign in as usual.
    """
    offering, result = _upload(session, member, body.csv)
    links = [make_link(u) for u in result.people]
    return {
        "offering": offering.id,
        "enrolled": result.enrolled,
        "password_links": mailed_links(request, offering, links),
    }


ROSTER_PAGE = "/instructor/roster"


def _links_csv(links: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["email", "url", "expires_at"])
    for link in links:
        writer.writerow([link["email"], link["url"], link["expires_at"]])
    return out.getvalue()


@router.get(ROSTER_PAGE, include_in_schema=False)
def roster_page(request: Request, member: InstructorMember, place: PlaceDep) -> Response:
    """Upload a roster (CSV email,name,role) to this offering."""
    return _roster_form(request, member, place)


def _roster_form(
    request: Request, member: Member, place: Place, status_code: int = 200, **context: Any
) -> Response:
    context.setdefault("errors", [])
    context.setdefault("prefix", place.prefix)
    return render(
        request,
        "offerings/roster.html",
        status_code=status_code,
        user=member.user,
        offering=member.offering,
        **context,
    )


@router.post(ROSTER_PAGE, include_in_schema=False)
def roster_upload_form(
    request: Request,
    session: SessionDep,
    member: InstructorMember,
    place: PlaceDep,
    csv_text: Annotated[str, Form(alias="csv")] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> Response:
    """The form: enrol everyone, then show (and offer to download) the new accounts' links."""
    text = csv_text
    if file is not None and file.filename:
        try:
            text = file.file.read(1_000_001).decode("utf-8")
        except UnicodeDecodeError:
            problem = "The file is not UTF-8 text; save the roster as CSV (UTF-8) and try again."
            return _roster_form(request, member, place, 422, errors=[problem])
    try:
        offering, result = _upload(session, member, text)
    except OfferingError as exc:  # the form again, with the sentence and what was pasted
        return _roster_form(
            request, member, place, exc.status, errors=[exc.message], csv_text=text[:100_000]
        )
    links = mailed_links(request, offering, [make_link(u) for u in result.people])
    return _roster_form(
        request,
        member,
        place,
        result=result,
        links=links,
        links_csv=_links_csv(links),
        mail_set_up=configured(),
    )


@router.post(
    "/api/instructor/students/{user_id}/password-link",
    tags=["instructor"],
    responses=errors(401, 403, 404, 422),
)
def password_link_api(
    user_id: RowId, request: Request, session: SessionDep, member: InstructorMember, place: PlaceDep
) -> dict[str, Any]:
    """A one-time set-password (or reset) link for an account this offering's roster created,
    mailed to its owner when SMTP is set up (`mail` says whether it was)."""
    return mailed_links(request, member.offering, [_link(session, member, user_id, place)])[0]


def _link(session: Session, member: Member, user_id: int, place: Place) -> PasswordLink:
    person = session.get(User, user_id)
    if person is None or not is_member_here(session, user_id, place):
        raise OfferingError("there is no account with that id", status=404)
    try:
        return link_for(
            session=session,
            asker=member.user,
            asker_role=member.role,
            offering=member.offering,
            user=person,
        )
    except LinkRefused as exc:
        raise OfferingAccessError(str(exc)) from exc


@router.post("/instructor/students/{user_id}/password-link", include_in_schema=False)
def password_link_form(
    user_id: RowId, request: Request, session: SessionDep, member: InstructorMember, place: PlaceDep
) -> Response:
    """The "reset password" button: show the link to copy and send."""
    link = mailed_links(request, member.offering, [_link(session, member, user_id, place)])[0]
    return render(
        request,
        "offerings/password_link.html",
        user=member.user,
        link=link,
        prefix=staff_base(request),
    )
