"""Who is asking: resolved once per request from a bearer token or the session cookie."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy import bindparam, select

from app.db import SessionDep, release
from app.models_base import as_utc, utcnow
from app.users.models import User, WebSession
from app.users.service import hash_token, user_for_api_token
from app.web.csrf import SESSION_COOKIE

# Built once: constructing a statement and its cache key on every request cost as much CPU as
# running it (issue 23); only the token hash changes between requests.
_BY_SESSION = (
    select(User, WebSession.expires_at)
    .join(WebSession, WebSession.user_id == User.id)
    .where(WebSession.token_hash == bindparam("token_hash"))
)


def get_current_user(request: Request, session: SessionDep) -> User | None:
    """The logged-in account, or None for a visitor; the connection is given back at once."""
    try:
        return _lookup(request, session)
    finally:
        release(session)  # the endpoint runs in another thread trip: hold nothing until then


def _lookup(request: Request, session: SessionDep) -> User | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return user_for_api_token(session=session, token=auth[7:].strip())
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return None
    found = session.execute(_BY_SESSION, {"token_hash": hash_token(cookie)}).first()
    if found is None or as_utc(found[1]) < utcnow():
        return None
    user: User = found[0]
    return user


OptionalUser = Annotated[User | None, Depends(get_current_user)]


async def require_user(user: OptionalUser) -> User:
    """401 unless logged in (async: a check needs no trip to a thread)."""
    if user is None:
        raise HTTPException(status_code=401, detail="Please log in to continue.")
    return user


CurrentUser = Annotated[User, Depends(require_user)]
