"""Who is asking: resolved once per request from a bearer token or the session cookie."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy import select

from app.db import SessionDep
from app.models_base import utcnow
from app.users.models import Role, User, WebSession
from app.users.service import hash_token, user_for_api_token

SESSION_COOKIE = "session"


def _as_aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def get_current_user(request: Request, session: SessionDep) -> User | None:
    """The logged-in account, or None for a visitor."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return user_for_api_token(session=session, token=auth[7:].strip())
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return None
    row = session.scalar(select(WebSession).where(WebSession.token_hash == hash_token(cookie)))
    if row is None or _as_aware(row.expires_at) < utcnow():
        return None
    return session.get(User, row.user_id)


OptionalUser = Annotated[User | None, Depends(get_current_user)]


def require_user(user: OptionalUser) -> User:
    """401 unless logged in."""
    if user is None:
        raise HTTPException(status_code=401, detail="Please log in to continue.")
    return user


CurrentUser = Annotated[User, Depends(require_user)]


def require_instructor(user: CurrentUser) -> User:
    """403 unless the account is an instructor."""
    if user.role != Role.instructor:
        raise HTTPException(status_code=403, detail="This page is for instructors only.")
    return user


InstructorUser = Annotated[User, Depends(require_instructor)]
