"""Browser logins: checking a password, and starting and ending server-side sessions."""

from __future__ import annotations

import datetime as dt
import secrets
from functools import lru_cache
from urllib.parse import urlsplit

from sqlalchemy import delete
from sqlalchemy.orm import Session

from app.models_base import utcnow
from app.users.models import User, WebSession
from app.users.service import (
    get_user_by_email,
    hash_password,
    hash_token,
    password_matches,
    verify_password,
)

MAX_PASSWORD_CHARS = 1024


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return hash_password(secrets.token_urlsafe(16))


def authenticate(*, session: Session, email: str, password: str) -> User | None:
    """The account for this email and password, or None; unknown emails take as long."""
    if not email or not password or len(password) > MAX_PASSWORD_CHARS:
        return None
    user = get_user_by_email(session=session, email=email)
    if user is None:
        # Same hashing work as a real check, so response time does not reveal who has an account.
        password_matches(password=password, password_hash=_dummy_hash())
        return None
    return user if verify_password(user=user, password=password) else None


def start_web_session(*, session: Session, user: User, days: int) -> str:
    """Create a session row and return the cookie value (only its hash is stored)."""
    token = secrets.token_urlsafe(32)
    session.add(
        WebSession(
            user_id=user.id,
            token_hash=hash_token(token),
            csrf_token=secrets.token_hex(32),
            expires_at=utcnow() + dt.timedelta(days=days),
        )
    )
    session.commit()
    return token


def end_web_session(*, session: Session, token: str | None) -> None:
    """Delete the session row so the cookie is useless even if it was copied."""
    if not token:
        return
    session.execute(delete(WebSession).where(WebSession.token_hash == hash_token(token)))
    session.commit()


def safe_next(target: str | None, default: str = "/") -> str:
    """A same-site path to return to after logging in; anything else becomes the default."""
    if not target or len(target) > 2000 or not target.startswith("/"):
        return default
    if target.startswith("//") or "\\" in target:
        return default
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in target):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return default
    return target
