"""Instructor page for LTI: register an LMS, sync a course roster, pick best or latest score."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import func, select

from app.db import SessionDep
from app.lti.http import LmsError
from app.lti.models import LtiContext, LtiGradePost, LtiLink
from app.lti.registry import RegistrationError, platforms, register_platform
from app.lti.roster import sync_roster
from app.offerings.access import InstructorUser
from app.web.api import RowId
from app.web.templating import render

router = APIRouter(include_in_schema=False)
FIELDS = ("issuer", "client_id", "auth_url", "token_url", "jwks_url", "deployment_id")


def _page(
    request: Request,
    session: SessionDep,
    *,
    status: int = 200,
    message: str = "",
    error: str = "",
    values: dict[str, str] | None = None,
) -> Response:
    contexts = list(session.scalars(select(LtiContext).order_by(LtiContext.id)))
    outbox = dict(
        session.execute(
            select(LtiGradePost.status, func.count()).group_by(LtiGradePost.status)
        ).all()
    )
    links = {
        c.id: session.scalar(select(func.count()).where(LtiLink.context_id == c.id)) or 0
        for c in contexts
    }
    failures = session.execute(
        select(LtiLink.kind, LtiLink.slug, LtiGradePost.last_error, func.count())
        .join(LtiLink, LtiLink.id == LtiGradePost.link_id)
        .where(LtiGradePost.status == "failed")
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
        jwks_url=str(request.url_for("lti_jwks")),
        login_url=str(request.url_for("lti_login")),
        launch_url=str(request.url_for("lti_launch")),
    )


@router.get("/instructor/lti")
def lti_admin(request: Request, session: SessionDep, user: InstructorUser) -> Response:
    """Registered LMSs, their courses, the outbox state and the registration form."""
    return _page(request, session)


@router.post("/instructor/lti/platforms")
async def lti_register(request: Request, session: SessionDep, user: InstructorUser) -> Response:
    """Register an LMS (same issuer + client id again updates it)."""
    form = await request.form()
    values = {name: str(form.get(name) or "") for name in FIELDS}
    try:
        platform, created = register_platform(session=session, **values)
    except RegistrationError as exc:
        return _page(request, session, status=422, error=str(exc), values=values)
    verb = "Registered" if created else "Updated"
    return _page(request, session, message=f"{verb} {platform.issuer} ({platform.client_id}).")


@router.post("/instructor/lti/contexts/{context_id}/sync")
def lti_sync(
    request: Request, session: SessionDep, user: InstructorUser, context_id: RowId
) -> Response:
    """Pull the LMS course roster now."""
    context = session.get(LtiContext, context_id)
    if context is None:
        return _page(request, session, status=404, error="There is no such LMS course.")
    try:
        result = sync_roster(session=session, context=context)
    except LmsError as exc:
        return _page(request, session, status=502, error=f"Roster sync failed: {exc}")
    return _page(
        request,
        session,
        message=f"{context.title}: {result.members} members, {result.created} new accounts.",
    )


@router.post("/instructor/lti/contexts/{context_id}/policy")
async def lti_policy(
    request: Request, session: SessionDep, user: InstructorUser, context_id: RowId
) -> Response:
    """Send the best or the latest score of each student to this LMS course."""
    policy = str((await request.form()).get("policy") or "")
    context = session.get(LtiContext, context_id)
    if context is None or policy not in ("best", "latest"):
        return _page(request, session, status=422, error="Choose best or latest for a course.")
    context.score_policy = policy
    session.commit()
    return RedirectResponse("/instructor/lti", status_code=303)
