"""CSRF protection: signed double-submit tokens so another site cannot post with our cookies.

A token is `nonce.signature`, where the signature is an HMAC (keyed by SECRET_KEY) of the nonce
and a binding: the session cookie once logged in, or a random pre-session cookie before that
(for the login and sign-up forms). A forger can neither read our cookies nor compute the HMAC.
Requests authenticated by `Authorization: Bearer` carry no ambient credential and are exempt.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

import jinja2
from fastapi import FastAPI
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import get_settings
from app.web.templating import templates

SESSION_COOKIE = "session"  # the login session; set by users/ and LTI launches
PRESESSION_COOKIE = "presession"
FIELD = "csrf_token"
HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
# Forms posted before a session exists: checked even without a session cookie.
PRESESSION_PATHS = frozenset({"/login", "/signup", "/account/password"})
# Posted by an LMS, not by our forms: authenticated by the platform's signed id_token instead.
EXEMPT_PATHS = frozenset({"/lti/login", "/lti/launch"})
MAX_FORM_BYTES = 1024 * 1024
FORM_TOO_LARGE = (
    "The form is too large: at most 1 MB can be sent at once, and nothing was saved. "
    "Shorten the text, or edit the file in the course folder."
)
_STATE_KEY = "csrf"
FAILED = (
    "This form has expired or did not come from this site (its security token is missing or "
    "wrong). Reload the page and try again."
)


def _sign(binding: str, nonce: str) -> str:
    key = get_settings().secret_key.encode()
    digest = hmac.new(key, f"csrf|{binding}|{nonce}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def make_token(binding: str) -> str:
    """A fresh token for this binding; a new nonce each time so pages never repeat a token."""
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_sign(binding, nonce)}"


def token_matches(token: str, binding: str) -> bool:
    """Whether the token was made by us for this binding (constant-time)."""
    nonce, _, signature = token.partition(".")
    if not nonce or not signature or len(token) > 200:
        return False
    return hmac.compare_digest(signature, _sign(binding, nonce))


@dataclass
class CsrfState:
    """Per-request cookies and the token handed to templates."""

    session: str | None
    presession: str | None
    new_presession: str | None = None
    token: str | None = None

    def binding(self) -> str:
        """What this request's token is bound to; creates a pre-session value when needed."""
        if self.session:
            return f"s:{self.session}"
        if not self.presession:
            self.presession = self.new_presession = secrets.token_urlsafe(32)
        return f"p:{self.presession}"

    def accepted_bindings(self, path: str) -> list[str]:
        """Bindings a submitted token may have; login/sign-up also accept the pre-session one."""
        found = []
        if self.session:
            found.append(f"s:{self.session}")
        if self.presession and (not self.session or path in PRESESSION_PATHS):
            found.append(f"p:{self.presession}")
        return found


def _cookies(scope: Scope) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: S112 - a malformed cookie header counts as no cookie
                continue
    return {key: morsel.value for key, morsel in jar.items()}


def _state(scope: Scope) -> CsrfState:
    state: dict[str, Any] = scope.setdefault("state", {})
    if _STATE_KEY not in state:
        cookies = _cookies(scope)
        state[_STATE_KEY] = CsrfState(cookies.get(SESSION_COOKIE), cookies.get(PRESESSION_COOKIE))
    found: CsrfState = state[_STATE_KEY]
    return found


def token_for(request: Request) -> str:
    """The token to put in this page's forms and <meta name="csrf-token">."""
    state = _state(request.scope)
    if state.token is None:
        state.token = make_token(state.binding())
    return state.token


@jinja2.pass_context
def _template_token(context: jinja2.runtime.Context) -> str:
    request = context.get("request")
    return token_for(request) if isinstance(request, Request) else ""


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def _presession_cookie(value: str) -> str:
    parts = [f"{PRESESSION_COOKIE}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if get_settings().app_env == "production":
        parts.append("Secure")
    return "; ".join(parts)


class CsrfMiddleware:
    """Refuses unsafe cookie-authenticated requests without a valid token; sets the cookie."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = _state(scope)

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and state.new_presession:
                headers = MutableHeaders(scope=message)
                headers.append("set-cookie", _presession_cookie(state.new_presession))
            await send(message)

        if scope["method"] in SAFE_METHODS or not self._needs_check(scope, state):
            await self.app(scope, receive, send_with_cookie)
            return
        token = _header(scope, HEADER.encode())
        if not token:
            body, too_big = await _read_body(receive)
            if too_big:
                await _refuse(scope, send, 413, FORM_TOO_LARGE)
                return
            token = await _form_token(scope, body)
            receive = _replay(body, receive)
        bindings = state.accepted_bindings(scope.get("path", ""))
        if not any(token_matches(token, binding) for binding in bindings):
            await _refuse(scope, send, 403, FAILED)
            return
        await self.app(scope, receive, send_with_cookie)

    @staticmethod
    def _needs_check(scope: Scope, state: CsrfState) -> bool:
        if _header(scope, b"authorization").lower().startswith("bearer "):
            return False
        if scope.get("path", "") in EXEMPT_PATHS:
            return False
        return bool(state.session) or scope.get("path", "") in PRESESSION_PATHS


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks), False


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _form_token(scope: Scope, body: bytes) -> str:
    content_type = _header(scope, b"content-type").lower()
    if content_type.startswith("application/x-www-form-urlencoded"):
        values = parse_qs(body.decode("latin-1"), max_num_fields=1000).get(FIELD, [""])
        return values[0]
    if content_type.startswith("multipart/form-data"):
        request = Request(scope, _replay(body, _no_more))
        try:
            async with request.form() as form:
                value = form.get(FIELD)
        except Exception:
            return ""
        return value if isinstance(value, str) else ""
    return ""


async def _no_more() -> Message:
    return {"type": "http.disconnect"}


async def _refuse(scope: Scope, send: Send, status: int, message: str) -> None:
    if scope.get("path", "").startswith("/api/"):
        body = json.dumps({"detail": message}).encode()
        content_type = b"application/json"
    else:
        body = message.encode()
        content_type = b"text/plain; charset=utf-8"
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def install_csrf(app: FastAPI) -> None:
    """Add the middleware and make `csrf_token()` available to every template."""
    templates.env.globals["csrf_token"] = _template_token
    app.add_middleware(CsrfMiddleware)
