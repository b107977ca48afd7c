"""OAuth2 client-credentials tokens for LTI services, asked for with a signed JWT (RFC 7523)."""

from __future__ import annotations

import secrets
import threading
import time
from urllib.parse import urlencode

from app.lti import keys
from app.lti.http import LmsError, call
from app.lti.models import LtiPlatform

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_MEMBERSHIPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
_cache: dict[tuple[str, str, str], tuple[str, float]] = {}
_lock = threading.Lock()


def assertion(platform: LtiPlatform) -> str:
    """The private_key_jwt client assertion: we are the client, the token URL is the audience."""
    now = int(time.time())
    return keys.sign(
        {
            "iss": platform.client_id,
            "sub": platform.client_id,
            "aud": platform.token_url,
            "iat": now,
            "exp": now + 300,
            "jti": secrets.token_urlsafe(16),
        }
    )


def access_token(platform: LtiPlatform, scopes: list[str]) -> str:
    """A bearer token for these scopes, reused until a minute before it expires."""
    scope = " ".join(sorted(scopes))
    key = (platform.issuer, platform.client_id, scope)
    with _lock:
        cached = _cache.get(key)
        if cached and cached[1] > time.monotonic():
            return cached[0]
    form = urlencode(
        {
            "grant_type": "client_credentials",
            "client_assertion_type": ASSERTION_TYPE,
            "client_assertion": assertion(platform),
            "scope": scope,
        }
    ).encode()
    answer = call(
        "POST",
        platform.token_url,
        form=form,
        content_type="application/x-www-form-urlencoded",
    ).body
    if not isinstance(answer, dict) or not isinstance(answer.get("access_token"), str):
        raise LmsError(f"the token endpoint {platform.token_url} returned no access_token")
    lifetime = float(answer.get("expires_in", 3600))
    with _lock:
        _cache[key] = (answer["access_token"], time.monotonic() + max(lifetime - 60, 0))
    return str(answer["access_token"])


def forget_tokens() -> None:
    """Drop cached tokens (after a key rotation, or when an LMS refused one)."""
    with _lock:
        _cache.clear()
