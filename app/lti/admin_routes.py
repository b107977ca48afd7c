"""Instructor page for LTI: register an LMS, sync a course roster, pick best or latest score.

Registering an LMS is site-wide; the LMS courses, their grade posts and their actions are those
of the offering the page is opened in (all of them for a site admin), so an instructor of one
offering neither sees nor changes another's.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import ColumnElement, and_, func, or_, select

from app.lti.http import LmsError
from app.lti.models import LtiContext, LtiGradePost, LtiLink
from app.lti.registry import RegistrationError, platforms, register_platform
from app.lti.roster import sync_roster
from app.offerings.access import InstructorMember, Member
from app.offerings.first import legacy_offering_id_query
from app.offerings.place import Place, PlaceDep
from app.web.api import RowId
from app.web.request_session import SessionDep
from app.web.templating import render, staff_base

router = APIRouter(include_in_schema=False)
NO_SUCH_COURSE = "There is no such LMS course in this offering."
FIELDS = ("issuer", "client_id", "auth_url", "token_url", "jwks_url", "deployment_id")


def _here(member: Member) -> ColumnElement[bool]:
    """The LMS courses of the member's offering (a never-linked one feeds the first offering)."""
    if member.user.is_admin:
        return LtiContext.id.is_not(None)
    never_linked_here = and_(
        LtiContext.offering_id.is_(None), legacy_offering_id_query() == member.offering.id
    )
    return or_(LtiContext.offering_id == member.offering.id, never_linked_here)


def _context(session: SessionDep, member: Member, context_id: int) -> LtiContext | None:
    """One LMS course of the member's offering, or None."""
    return session.scalar(select(LtiContext).where(LtiContext.id == context_id, _here(member)))


def _page(
    request: Request,
    session: SessionDep,
    member: Member,
    *,
    place: Place,
    status: int = 200,
    message: str = "",
    error: str = "",
    values: dict[str, str] | None = None,
) -> Response:
    contexts = list(
        session.scalars(select(LtiContext).where(_here(member)).order_by(LtiContext.id))
    )
    ids = [c.id for c in contexts]
    outbox = dict(
        session.execute(
            select(LtiGradePost.status, func.count())
            .join(LtiLink, LtiLink.id == LtiGradePost.link_id)
            .where(LtiLink.context_id.in_(ids))
            .group_by(LtiGradePost.status)
        ).all()
    )
    links = {
        c.id: session.scalar(select(func.count()).where(LtiLink.context_id == c.id)) or 0
        for c in contexts
    }
    failures = session.execute(
        select(LtiLink.kind, LtiLink.slug, LtiGradePost.last_error, func.count())
        .join(LtiLink, LtiLink.id == LtiGradePost.link_id)
        .where(LtiGradePost.status == "failed", LtiLink.context_id.in_(ids))
        .group_by(LtiLink.kind, LtiLink.slug, LtiGradePost.last_error)
        .order_by(func.max(LtiGradePost.id).desc())
        .limit(10)
    ).all()
    return render(
        request,
        "lti/admin.html",
        status_code=status,
        platforms=platforms(session=session),
        contexts=contexts,
        outbox=outbox,
        links=links,
        failures=failures,
        message=message,
        error=error,
        values=values or {},
        can_register=member.user.is_admin,
        base=staff_base(request),
        jwks_url=str(request.url_for("lti_jwks")),
        login_url=str(request.url_for("lti_login")),
        launch_url=str(request.url_for("lti_launch")),
    )


REGISTER_ADMINS = (
    "Only a site administrator can register or change an LMS: it is trusted by every course "
    "and offering. Ask one, or run `python -m app lti register` on the server."
)


@router.get("/instructor/lti")
def lti_admin(
    request: Request, session: SessionDep, member: InstructorMember, place: PlaceDep
) -> Response:
    """Registered LMSs, this offering's LMS courses, their outbox and the registration form."""
    return _page(request, session, member, place=place)


@router.post("/instructor/lti/platforms")
async def lti_register(
    request: Request, session: SessionDep, member: InstructorMember, place: PlaceDep
) -> Response:
    """Register an LMS (same issuer + client id again updates it): site administrators only.

    Why: an LMS is trusted site-wide. Whoever sets its key URL can sign launches as any of its
    users, with any role, into any offering its courses feed.
    """
    if not member.user.is_admin:
        return _page(request, session, member, status=403, error=REGISTER_ADMINS, place=place)
    form = await request.form()
    values = {name: str(form.get(name) or "") for name in FIELDS}
    try:
        platform, created = register_platform(session=session, **values)
    except RegistrationError as exc:
        return _page(
            request, session, member, status=422, error=str(exc), values=values, place=place
        )
    verb = "Registered" if created else "Updated"
    message = f"{verb} {platform.issuer} ({platform.client_id})."
    return _page(request, session, member, message=message, place=place)


@router.post("/instructor/lti/contexts/{context_id}/sync")
def lti_sync(
    request: Request,
    session: SessionDep,
    member: InstructorMember,
    context_id: RowId,
    place: PlaceDep,
) -> Response:
    """Pull the LMS course roster now."""
    context = _context(session, member, context_id)
    if context is None:
        return _page(request, session, member, status=404, error=NO_SUCH_COURSE, place=place)
    try:
        result = sync_roster(session=session, context=context)
    except LmsError as exc:
        return _page(
            request, session, member, status=502, error=f"Roster sync failed: {exc}", place=place
        )
    return _page(
        request,
        session,
        member,
        message=f"{context.title}: {result.members} members, {result.created} new accounts.",
        place=place,
    )


@router.post("/instructor/lti/contexts/{context_id}/policy")
async def lti_policy(
    request: Request,
    session: SessionDep,
    member: InstructorMember,
    context_id: RowId,
    place: PlaceDep,
) -> Response:
    """Send the best or the latest score of each student to this LMS course."""
    policy = str((await request.form()).get("policy") or "")
    context = _context(session, member, context_id)
    if context is None:
        return _page(request, session, member, status=404, error=NO_SUCH_COURSE, place=place)
    if policy not in ("best", "latest"):
        return _page(
            request, session, member, status=422, error="Choose best or latest.", place=place
        )
    context.score_policy = policy
    session.commit()
    return RedirectResponse(f"{place.prefix}/instructor/lti", status_code=303)
