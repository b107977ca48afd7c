"""Who is asking: resolved once per request from a bearer token or the session cookie."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.util import identity_key

from app.db import read_rows, release
from app.models_base import as_utc, utcnow
from app.users import session_cache
from app.users.models import User, WebSession
from app.users.service import hash_token, user_for_api_token
from app.web.csrf import SESSION_COOKIE
from app.web.on_loop import run_db
from app.web.request_session import SessionDep

# Built once: constructing a statement and its cache key on every request cost as much CPU as
# running it (issue 23); only the token hash changes between requests.
_COLUMNS = User.__mapper__.column_attrs
# The user's columns, not the mapped object: the row becomes the cache's entry and the user is
# built from it as from a remembered one (`_from_cache`), with no pass through the ORM's loading.
_BY_SESSION = (
    select(*(attr.columns[0] for attr in _COLUMNS), WebSession.expires_at)
    .join(WebSession, WebSession.user_id == User.id)
    .where(WebSession.token_hash == bindparam("token_hash"))
)
_NEW_USER = User.__mapper__.class_manager.new_instance


async def get_current_user(request: Request, session: SessionDep) -> User | None:
    """The logged-in account, or None for a visitor.

    Async: a visitor, or a session remembered a moment ago (session_cache), is answered in the
    event loop with no query; the rest are looked up where `run_db` says, and the connection
    is given back before the endpoint runs.
    """
    auth = request.headers.get("authorization", "")
    bearer = auth.lower().startswith("bearer ")
    cookie = None if bearer else request.cookies.get(SESSION_COOKIE)
    if not bearer and not cookie:
        return None
    token_hash = hash_token(cookie) if cookie else ""
    if cookie and session_cache.enabled():
        cached = session_cache.cache.get(token_hash)
        if cached is not None:
            return _from_cache(session, cached)
    return await run_db(_lookup_and_release, session, auth, token_hash)


def _lookup_and_release(session: Session, auth: str, token_hash: str) -> User | None:
    try:
        if token_hash:
            return _by_session(session, token_hash)
        return user_for_api_token(session=session, token=auth[7:].strip())
    finally:
        release(session)  # the endpoint runs in another thread trip: hold nothing until then


def _by_session(session: Session, token_hash: str) -> User | None:
    generation = session_cache.cache.generation
    found = read_rows(session, _BY_SESSION, {"token_hash": token_hash}).first()
    if found is None:
        return None
    *columns, expires_at = found
    values = {attr.key: value for attr, value in zip(_COLUMNS, columns, strict=True)}
    entry = session_cache.CachedSession(values, expires_at, time.monotonic())
    if session_cache.enabled():
        session_cache.cache.put(token_hash, entry, generation)
    return _from_cache(session, entry)


def _from_cache(session: Session, cached: session_cache.CachedSession) -> User | None:
    """The remembered user as a persistent object of this request's session, with no query."""
    if as_utc(cached.expires_at) < utcnow():
        return None
    key = identity_key(User, cached.user["id"])
    present = session.identity_map.get(key)
    if isinstance(present, User):
        return present
    user: User = _NEW_USER()  # as a query builds one: no constructor, no events (issue 54)
    vars(user).update(cached.user)
    make_transient_to_detached(user)  # as if just loaded: no history, no INSERT at flush
    session.add(user)
    return user


OptionalUser = Annotated[User | None, Depends(get_current_user)]


async def require_user(user: OptionalUser) -> User:
    """401 unless logged in (async: a check needs no trip to a thread)."""
    if user is None:
        raise HTTPException(status_code=401, detail="Please log in to continue.")
    return user


CurrentUser = Annotated[User, Depends(require_user)]
