"""Short-lived tokens signed with SECRET_KEY: the new-window hand-off and deep-link requests."""

from __future__ import annotations

import datetime as dt
import secrets
import time
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.config import get_settings
from app.lti.models import LtiNonce
from app.models_base import utcnow

HANDOFF_SECONDS = 300
DEEP_LINK_SECONDS = 3600


class TicketError(ValueError):
    """A ticket that is forged, expired, for something else, or already used."""


def issue(purpose: str, claims: dict[str, Any], seconds: int) -> str:
    """Sign claims for one purpose, valid for `seconds`."""
    now = int(time.time())
    body = {**claims, "pur": purpose, "iat": now, "exp": now + seconds}
    body["jti"] = secrets.token_urlsafe(16)
    import jwt  # loaded by the first ticket: every start skips it (issue 54)

    return jwt.encode(body, get_settings().secret_key, algorithm="HS256")


def read(purpose: str, ticket: str) -> dict[str, Any]:
    """The claims of a valid ticket for this purpose (reusable until it expires)."""
    import jwt

    try:
        claims: dict[str, Any] = jwt.decode(
            ticket,
            get_settings().secret_key,
            algorithms=["HS256"],
            options={"require": ["exp", "jti", "pur"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise TicketError("this link has expired; open the item from the LMS again") from exc
    except jwt.InvalidTokenError as exc:
        raise TicketError("this link is not valid") from exc
    if claims.get("pur") != purpose:
        raise TicketError("this link is not valid here")
    return claims


def redeem(session: Session, purpose: str, ticket: str) -> dict[str, Any]:
    """Like `read`, but each ticket works once (its id is stored as a used nonce)."""
    claims = read(purpose, ticket)
    session.add(
        LtiNonce(
            value=f"{purpose}:{claims['jti']}"[:128],
            expires_at=utcnow() + dt.timedelta(seconds=HANDOFF_SECONDS * 2),
            used_at=utcnow(),
        )
    )
    try:
        session.commit()
    except IntegrityError as exc:
        session.rollback()
        raise TicketError("this link was already used; open the item from the LMS again") from exc
    return claims
