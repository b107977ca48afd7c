"""LTI endpoints an LMS and its iframe talk to: login, launch, JWKS, hand-off, deep linking."""

from __future__ import annotations

import logging
import secrets
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.config import get_settings
from app.content.loader import Course
from app.courses.service import request_registry
from app.lti import deeplink, keys, place, tickets
from app.lti.launch import LTI, Binding, LaunchError, StorageCheck, begin_login, validate_launch
from app.lti.models import LtiPlatform
from app.lti.service import handle_launch
from app.users.deps import OptionalUser
from app.users.models import User
from app.users.sessions import safe_next, start_web_session
from app.web.csrf import SESSION_COOKIE
from app.web.request_session import SessionDep
from app.web.security import csp_with
from app.web.templating import render

router = APIRouter(tags=["lti"])
log = logging.getLogger(__name__)
STATE_COOKIE = "lti_state"


def _refuse(request: Request, exc: LaunchError) -> Response:
    log.warning("LTI refused (%s): %s", exc.status, exc.reason)
    return render(
        request,
        "lti/error.html",
        status_code=exc.status,
        title="LMS launch refused",
        detail=exc.message,
    )


def _iframe_cookie(response: Response, name: str, value: str, max_age: int) -> None:
    """A cookie that still works inside an LMS iframe (third-party context, CHIPS).

    Written by hand: Python < 3.14's cookie module cannot emit the Partitioned attribute.
    """
    response.headers.append(
        "set-cookie",
        f"{name}={value}; Max-Age={max_age}; Path=/; HttpOnly; Secure; SameSite=None; Partitioned",
    )


async def _params(request: Request) -> dict[str, str]:
    found = dict(request.query_params)
    if request.method == "POST":
        form = await request.form()
        found.update({k: v for k, v in form.items() if isinstance(v, str)})
    return found


@router.api_route("/lti/login", methods=["GET", "POST"], include_in_schema=False)
async def lti_login(request: Request, session: SessionDep) -> Response:
    """OIDC third-party login initiation: off to the platform's authorization endpoint."""
    try:
        login = begin_login(
            session=session,
            params=await _params(request),
            redirect_uri=str(request.url_for("lti_launch")),
        )
    except LaunchError as exc:
        return _refuse(request, exc)
    if login.storage_target is None:
        response: Response = RedirectResponse(login.redirect_url, status_code=302)
    else:  # keep the state with the LMS too, for a frame where our cookie is blocked
        response = render(
            request,
            "lti/storage_login.html",
            redirect_url=login.redirect_url,
            state=login.state,
            storage_target=login.storage_target,
            platform_origin=login.platform_origin,
        )
        response.headers["cache-control"] = "no-store"
    _iframe_cookie(response, STATE_COOKIE, login.state, 600)
    return response


def _from_our_page(request: Request) -> bool:
    """Whether a post came from one of our own pages (a browser-set header no site can forge)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    base = urlsplit(str(request.base_url))
    return request.headers.get("origin") == f"{base.scheme}://{base.netloc}"


def _signed_in(session: SessionDep, user: User, target: str) -> Response:
    settings = get_settings()
    token = start_web_session(session=session, user=user, days=settings.session_days)
    handoff = tickets.issue("handoff", {"uid": user.id, "to": target}, tickets.HANDOFF_SECONDS)
    response = RedirectResponse(f"/lti/continue?{urlencode({'h': handoff})}", status_code=303)
    _iframe_cookie(response, SESSION_COOKIE, token, settings.session_days * 86400)
    return response


def _course(
    request: Request, session: Session, platform_id: int, context: Any, claims: dict[str, Any]
) -> tuple[Course, str]:
    """The course this launch or deep link works in, and its pages' address prefix."""
    registry = request_registry(request)
    context_id = str(context.get("id") or "") if isinstance(context, dict) else ""
    course = place.course_for(
        session=session,
        registry=registry,
        platform_id=platform_id,
        context_id=context_id,
        named=place.named_course(claims),
    )
    return course, place.base_of(course, registry)


@router.post("/lti/launch", include_in_schema=False, name="lti_launch")
async def lti_launch(request: Request, session: SessionDep) -> Response:
    """The platform posts the id_token here; a valid launch signs the person in."""
    form = await request.form()
    id_token, state = form.get("id_token"), form.get("state")
    id_token = id_token if isinstance(id_token, str) else ""
    state = state if isinstance(state, str) else ""
    stored = form.get("storage_state")
    binding = Binding(
        cookie_state=request.cookies.get(STATE_COOKIE),
        storage_state=stored if isinstance(stored, str) else None,
        from_our_page=_from_our_page(request),
    )
    try:
        platform, claims = validate_launch(
            session=session, id_token=id_token, state=state, binding=binding
        )
        course, base = _course(request, session, platform.id, claims.get(LTI + "context"), claims)
        launched = handle_launch(
            session=session, course=course, platform=platform, claims=claims, base=base
        )
    except StorageCheck as check:
        log.info("LTI launch without the state cookie: asking the LMS's platform storage")
        response = render(
            request,
            "lti/storage_check.html",
            id_token=id_token,
            state=state,
            storage_target=check.target,
            platform_origin=check.platform_origin,
        )
        response.headers["cache-control"] = "no-store"
        return response
    except LaunchError as exc:
        return _refuse(request, exc)
    target = launched.target
    if target == "/lti/deep-link":
        ticket = tickets.issue(
            "deep-link",
            {"uid": launched.user.id, **deeplink.request_claims(claims, platform)},
            tickets.DEEP_LINK_SECONDS,
        )
        target = f"/lti/deep-link?{urlencode({'t': ticket})}"
    log.info("LTI launch: user %s from %s to %s", launched.user.id, platform.issuer, target)
    return _signed_in(session, launched.user, target)


@router.get("/lti/continue", include_in_schema=False)
def lti_continue(request: Request, user: OptionalUser, h: str = "") -> Response:
    """Land on the item if the session cookie arrived; else offer a new window."""
    try:
        claims = tickets.read("handoff", h)
    except tickets.TicketError as exc:
        return _refuse(request, LaunchError(400, str(exc).capitalize() + ".", "bad hand-off"))
    target = safe_next(str(claims.get("to", "/")))
    if user is not None and user.id == claims.get("uid"):
        return RedirectResponse(target, status_code=303)
    log.info("LTI launch: session cookie blocked in the frame; offering a new window")
    return render(request, "lti/new_window.html", open_url=f"/lti/open?{urlencode({'h': h})}")


@router.get("/lti/open", include_in_schema=False)
def lti_open(request: Request, session: SessionDep, h: str = "") -> Response:
    """The launch continued in a top-level window: the one-time hand-off signs the person in."""
    try:
        claims = tickets.redeem(session, "handoff", h)
    except tickets.TicketError as exc:
        return _refuse(request, LaunchError(400, str(exc).capitalize() + ".", "bad hand-off"))
    user = session.get(User, claims.get("uid"))
    if user is None:
        return _refuse(request, LaunchError(400, "This account no longer exists.", "no user"))
    settings = get_settings()
    token = start_web_session(session=session, user=user, days=settings.session_days)
    response = RedirectResponse(safe_next(str(claims.get("to", "/"))), status_code=303)
    _iframe_cookie(response, SESSION_COOKIE, token, settings.session_days * 86400)
    return response


@router.get("/lti/jwks", include_in_schema=False)
def lti_jwks() -> JSONResponse:
    """The tool's public keys (current and previous) for platforms to check our signatures."""
    return JSONResponse({"keys": keys.public_keys()}, headers={"Cache-Control": "max-age=300"})


def _deep_link_request(request: Request, user: User | None, ticket: str) -> dict[str, Any]:
    if user is None:  # the signed ticket is issued only to a launch that may deep-link
        raise LaunchError(403, "Only instructors can add course content.", "deep link: no rights")
    try:
        claims = tickets.read("deep-link", ticket)
    except tickets.TicketError as exc:
        raise LaunchError(400, str(exc).capitalize() + ".", "bad deep-link ticket") from exc
    if claims.get("uid") != user.id:
        raise LaunchError(403, "This deep linking request belongs to someone else.", "uid")
    return claims


def _return_page(
    request: Request, *, return_url: str, jwt_value: str, count: int, refusal: str = ""
) -> Response:
    """The form that posts the signed response to the LMS: by itself, or (refusal) by a button."""
    parts = urlsplit(return_url)
    nonce = secrets.token_urlsafe(16)
    csp = csp_with(
        script_src=f"'self' 'nonce-{nonce}'",
        form_action=f"'self' {parts.scheme}://{parts.netloc}",
    )
    response = render(
        request,
        "lti/deep_link_return.html",
        return_url=return_url,
        jwt=jwt_value,
        script_nonce=nonce,
        count=count,
        refusal=refusal,
    )
    response.headers["content-security-policy"] = csp
    return response


def _platform(session: SessionDep, claims: dict[str, Any]) -> LtiPlatform:
    platform = session.get(LtiPlatform, claims.get("pid"))
    if platform is None:
        raise LaunchError(400, "This LMS is no longer registered.", "deep link: no platform")
    return platform


@router.get("/lti/deep-link", include_in_schema=False)
def deep_link_form(
    request: Request, session: SessionDep, user: OptionalUser, t: str = ""
) -> Response:
    """The picker: lessons, quizzes and exercises to add, as the LMS placement accepts them."""
    try:
        claims = _deep_link_request(request, user, t)
        kind = deeplink.item_type(claims)
        if kind is None:
            platform = _platform(session, claims)
    except LaunchError as exc:
        return _refuse(request, exc)
    if kind is None:
        error = deeplink.unsupported(claims)
        log.info("LTI deep linking: nothing the placement accepts (%s)", error[1])
        jwt_value = deeplink.response_jwt(platform=platform, request=claims, items=[], error=error)
        return _return_page(
            request, return_url=str(claims["ret"]), jwt_value=jwt_value, count=0, refusal=error[0]
        )
    course, _ = _course(request, session, int(claims["pid"]), {"id": claims.get("ctx")}, {})
    items = deeplink.choices(course)
    return render(
        request,
        "lti/deep_link.html",
        ticket=t,
        items=items,
        kind=kind,
        multiple=bool(claims.get("multi", True)),
        lineitem=bool(claims.get("li", True)),
    )


@router.post("/lti/deep-link", include_in_schema=False)
async def deep_link_submit(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    """Sign the chosen items and post them back to the LMS (CSRF-checked form)."""
    form = await request.form()
    ticket = form.get("t")
    picked = [v for v in form.getlist("item") if isinstance(v, str)]
    try:
        claims = _deep_link_request(request, user, ticket if isinstance(ticket, str) else "")
        kind = deeplink.item_type(claims)
        if kind is None:
            message, reason = deeplink.unsupported(claims)
            raise LaunchError(422, message, f"deep link: {reason}")
        if not picked:
            raise LaunchError(422, "Choose at least one item to add.", "deep link: nothing picked")
        if len(picked) > 1 and not claims.get("multi", True):
            raise LaunchError(422, "This LMS accepts one item at a time.", "deep link: multiple")
        platform = _platform(session, claims)
        course, base = _course(request, session, platform.id, {"id": claims.get("ctx")}, {})
        items = deeplink.content_items(
            course,
            picked,
            str(request.base_url),
            kind=kind,
            lineitem=bool(claims.get("li", True)),
            base=base,
        )
    except LaunchError as exc:
        return _refuse(request, exc)
    jwt_value = deeplink.response_jwt(platform=platform, request=claims, items=items)
    return _return_page(
        request, return_url=str(claims["ret"]), jwt_value=jwt_value, count=len(items)
    )
