"""OIDC login initiation and id_token validation: every check a launch must pass, in order."""

from __future__ import annotations

import datetime as dt
import logging
import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.config import get_settings
from app.errors import DomainError
from app.lti.models import LtiNonce, LtiPlatform
from app.lti.registry import deployment_known, find_platform
from app.models_base import as_utc, utcnow

if TYPE_CHECKING:
    import jwt  # loaded by the first launch: every start skips it (issue 54)

log = logging.getLogger(__name__)

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPES = frozenset({"LtiResourceLinkRequest", "LtiDeepLinkingRequest"})
LOGIN_SECONDS = 600
LEEWAY_SECONDS = 60
STORAGE_TARGET = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_jwks_clients: dict[str, jwt.PyJWKClient] = {}
_jwks_lock = threading.Lock()
_refetched_at: dict[str, float] = {}
REFETCH_SECONDS = 60.0


class LaunchError(DomainError):
    """A refused login or launch: HTTP status, a sentence for the user, and why (for the log)."""

    def __init__(self, status: int, message: str, reason: str) -> None:
        super().__init__(status, message)
        self.reason = reason


@dataclass(frozen=True)
class Login:
    """Where to send the browser next, the state to pin in its cookie, and, when the platform
    offers its storage, the frame that keeps the state too."""

    redirect_url: str
    state: str
    storage_target: str | None = None
    platform_origin: str = ""


@dataclass(frozen=True)
class Binding:
    """What ties a launch to the browser that started the login (OIDC Core 3.1.2.1)."""

    cookie_state: str | None = None  # the lti_state cookie, when the browser sent it
    storage_state: str | None = None  # the state our page read back from platform storage
    from_our_page: bool = False  # the post came from one of our pages, not another site


class StorageCheck(Exception):
    """No state cookie, but the login kept its state in platform storage: ask the browser."""

    def __init__(self, target: str, platform_origin: str) -> None:
        super().__init__("platform storage check needed")
        self.target = target
        self.platform_origin = platform_origin


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL (the postMessage target origin of a platform)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def begin_login(*, session: Session, params: dict[str, str], redirect_uri: str) -> Login:
    """Step 1 of the OIDC dance: remember a fresh state + nonce, redirect to the platform."""
    issuer = params.get("iss", "")
    login_hint = params.get("login_hint", "")
    if not issuer or not login_hint:
        raise LaunchError(
            400, "This LMS login request is missing iss or login_hint.", "login without iss"
        )
    platform = find_platform(session=session, issuer=issuer, client_id=params.get("client_id"))
    if platform is None:
        raise LaunchError(
            400,
            "This LMS is not registered with the course (unknown issuer or client id). "
            "Ask an administrator to register it.",
            f"login from unregistered issuer {issuer!r} client {params.get('client_id')!r}",
        )
    storage_target = params.get("lti_storage_target") or None
    if storage_target is not None and not STORAGE_TARGET.fullmatch(storage_target):
        raise LaunchError(
            400,
            "This LMS login request names a storage frame the course cannot use.",
            f"bad lti_storage_target {storage_target[:100]!r}",
        )
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    session.add(
        LtiNonce(
            value=nonce,
            state=state,
            platform_id=platform.id,
            expires_at=utcnow() + dt.timedelta(seconds=LOGIN_SECONDS),
            storage_target=storage_target,
        )
    )
    session.commit()
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": redirect_uri,
        "login_hint": login_hint,
        "state": state,
        "nonce": nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if "?" in platform.auth_url else "?"
    return Login(
        redirect_url=f"{platform.auth_url}{separator}{urlencode(query)}",
        state=state,
        storage_target=storage_target,
        platform_origin=origin_of(platform.auth_url),
    )


def _jwks_client(url: str) -> jwt.PyJWKClient:
    import jwt

    with _jwks_lock:
        client = _jwks_clients.get(url)
        if client is None:
            timeout = int(get_settings().lti_http_timeout_seconds)
            client = jwt.PyJWKClient(url, cache_keys=True, lifespan=300, timeout=timeout)
            _jwks_clients[url] = client
        return client


def _same(given: str, expected: str) -> bool:
    """Constant-time equality that also copes with non-ASCII input (compare_digest raises)."""
    return secrets.compare_digest(given.encode(), expected.encode())


def _login_row(session: Session, state: str, binding: Binding) -> LtiNonce:
    if not state:
        raise LaunchError(400, "This launch has no state; start it again from the LMS.", "no state")
    if binding.cookie_state and not _same(binding.cookie_state, state):
        raise LaunchError(
            403, "This launch was started in another browser window.", "state cookie mismatch"
        )
    row = session.scalar(select(LtiNonce).where(LtiNonce.state == state))
    if row is None or row.platform_id is None:
        raise LaunchError(
            403, "This launch was not started here; open it again from the LMS.", "unknown state"
        )
    if row.used_at is not None:
        raise LaunchError(
            403, "This launch was already used; open it again from the LMS.", "state replayed"
        )
    if as_utc(row.expires_at) < utcnow():
        raise LaunchError(
            403, "This launch took too long; open it again from the LMS.", "state expired"
        )
    return row


def _bound_by_storage(row: LtiNonce, platform: LtiPlatform, state: str, binding: Binding) -> None:
    """Without the cookie, only the state kept in this browser's platform storage binds it."""
    if row.storage_target is None:
        raise LaunchError(
            403,
            "Your browser blocked the cookie the sign-in needs, so the course cannot tell "
            "that this launch started in this browser. Open the course in a new tab (or "
            "allow cookies for this site) and try again.",
            "no state cookie and no platform storage",
        )
    if binding.storage_state is None:
        raise StorageCheck(row.storage_target, origin_of(platform.auth_url))
    if not binding.from_our_page:
        raise LaunchError(
            403, "This launch was sent from another site.", "storage state from another site"
        )
    if not _same(binding.storage_state, state):
        raise LaunchError(
            403,
            "This launch was started in another browser; open it again from the LMS.",
            "platform storage state mismatch",
        )


def _verified(id_token: str, key: Any, platform: LtiPlatform) -> dict[str, Any]:
    import jwt

    claims: dict[str, Any] = jwt.decode(
        id_token,
        key,
        algorithms=["RS256"],
        audience=platform.client_id,
        issuer=platform.issuer,
        leeway=LEEWAY_SECONDS,
        options={"require": ["exp", "iat", "iss", "aud", "sub", "nonce"]},
    )
    return claims


def _refetched_key(url: str, id_token: str) -> Any | None:
    """The token's key fetched again when the cached one does not verify it (an LMS that
    rotated its key under the same kid); at most once a minute per LMS, so forged tokens
    cannot make us hammer its key endpoint. None: not refetched, or no such key."""
    import jwt

    now = time.monotonic()
    with _jwks_lock:
        if now - _refetched_at.get(url, -REFETCH_SECONDS) < REFETCH_SECONDS:
            return None
        _refetched_at[url] = now
    kid = jwt.get_unverified_header(id_token).get("kid")
    try:
        keys = _jwks_client(url).get_signing_keys(refresh=True)
    except jwt.PyJWKClientError:
        return None
    found = next((k for k in keys if k.key_id == kid), None)
    return None if found is None else found.key


def _decode(id_token: str, platform: LtiPlatform) -> dict[str, Any]:
    import jwt

    try:
        key = _jwks_client(platform.jwks_url).get_signing_key_from_jwt(id_token)
    except jwt.PyJWKClientError as exc:
        raise LaunchError(
            401, "The LMS's signature could not be checked.", f"JWKS lookup failed: {exc}"
        ) from exc
    except jwt.DecodeError as exc:
        raise LaunchError(400, "The launch token is malformed.", f"bad token: {exc}") from exc
    try:
        try:
            claims = _verified(id_token, key.key, platform)
        except jwt.InvalidSignatureError:
            fresh = _refetched_key(platform.jwks_url, id_token)
            if fresh is None:
                raise
            claims = _verified(id_token, fresh, platform)
    except jwt.ExpiredSignatureError as exc:
        raise LaunchError(401, "The launch token has expired.", "expired id_token") from exc
    except jwt.InvalidAudienceError as exc:
        raise LaunchError(401, "The launch token is not for this tool.", "wrong audience") from exc
    except jwt.InvalidIssuerError as exc:
        raise LaunchError(401, "The launch token has the wrong issuer.", "wrong issuer") from exc
    except jwt.InvalidSignatureError as exc:
        raise LaunchError(401, "The launch token's signature is wrong.", "bad signature") from exc
    except jwt.InvalidTokenError as exc:
        raise LaunchError(401, "The launch token is invalid.", f"invalid id_token: {exc}") from exc
    # OIDC Core 3.1.3.7: every audience must be one we trust (only our client id), and an
    # authorized party, when named or needed for several audiences, must be us.
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if any(audience != platform.client_id for audience in audiences):
        raise LaunchError(
            401, "The launch token is also meant for someone else.", "untrusted audience"
        )
    if ("azp" in claims or len(audiences) > 1) and claims.get("azp") != platform.client_id:
        raise LaunchError(401, "The launch token is not for this tool.", "azp mismatch")
    return claims


def validate_launch(
    *, session: Session, id_token: str, state: str, binding: Binding
) -> tuple[LtiPlatform, dict[str, Any]]:
    """Check state (bound to this browser), signature, issuer, audience, expiry, nonce (once)
    and deployment; StorageCheck when the browser must first read its state back."""
    if not id_token:
        raise LaunchError(400, "This launch has no id_token.", "no id_token")
    row = _login_row(session, state, binding)
    platform = session.get(LtiPlatform, row.platform_id)
    if platform is None:
        raise LaunchError(403, "This LMS is no longer registered.", "platform deleted")
    if not binding.cookie_state:
        _bound_by_storage(row, platform, state, binding)
    claims = _decode(id_token, platform)
    if not _same(str(claims["nonce"]), row.value):
        raise LaunchError(403, "This launch does not match its login.", "nonce mismatch")
    used = session.execute(
        update(LtiNonce)
        .where(LtiNonce.id == row.id, LtiNonce.used_at.is_(None))
        .values(used_at=utcnow())
    )
    session.commit()
    if used.rowcount != 1:  # type: ignore[attr-defined]
        raise LaunchError(403, "This launch was already used.", "nonce replayed")
    deployment = str(claims.get(LTI + "deployment_id", ""))
    if not deployment_known(session=session, platform=platform, deployment_id=deployment):
        raise LaunchError(
            403,
            "This LMS deployment is not registered with the course.",
            f"unknown deployment {deployment!r}",
        )
    if claims.get(LTI + "message_type") not in MESSAGE_TYPES:
        raise LaunchError(400, "This kind of LTI message is not supported.", "bad message_type")
    if claims.get(LTI + "version") != "1.3.0":
        raise LaunchError(400, "Only LTI 1.3 launches are supported.", "bad version")
    if not claims.get("sub"):
        raise LaunchError(400, "Anonymous launches are not supported.", "no sub")
    return platform, claims
