"""A remembered session costs no query, and any change to users or sessions is seen at once."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, inspect, select, update

from app.config import get_settings
from app.db import session_factory
from app.users import session_cache
from app.users.deps import _from_cache
from app.users.models import User, WebSession
from tests.site.test_routes import statements
from tests.users.helpers import logged_in_client


def test_a_remembered_session_costs_no_statement(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    # The lesson list is content alone (the exercise list also reads the student's due dates).
    assert client.get("/api/lessons").status_code == 200
    with statements() as seen:
        assert client.get("/api/lessons").status_code == 200
    assert seen == []


def test_a_name_changed_elsewhere_in_the_process_shows_on_the_next_page(
    client: TestClient,
) -> None:
    user = logged_in_client(client, "ada@example.org", name="Ada")
    assert "(Ada)" in client.get("/").text
    with session_factory()() as session:
        session.execute(update(User).where(User.id == user.id).values(name="Countess"))
        session.commit()
    html = client.get("/").text
    assert "(Countess)" in html and "(Ada)" not in html


def test_a_session_deleted_elsewhere_in_the_process_ends_at_once(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    assert "Log out" in client.get("/").text
    with session_factory()() as session:
        session.execute(delete(WebSession))
        session.commit()
    assert "Log out" not in client.get("/").text
    assert client.get("/api/exercises").status_code == 200  # a visitor again


def test_a_remembered_session_still_ends_at_its_expiry(client: TestClient) -> None:
    # Why: a real time-out must be seen at once, cache or not (the cache keeps the expiry).
    logged_in_client(client, "ada@example.org")
    assert "Log out" in client.get("/").text
    past = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    for token, entry in list(session_cache.cache._entries.items()):
        session_cache.cache._entries[token] = session_cache.CachedSession(
            entry.user, past, entry.read_at
        )
    assert "Log out" not in client.get("/").text


def test_the_setting_turns_the_cache_off(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSION_CACHE", "false")
    get_settings.cache_clear()
    try:
        assert not session_cache.enabled()
        logged_in_client(client, "ada@example.org")
        client.get("/api/exercises")
        with statements() as seen:
            assert client.get("/api/exercises").status_code == 200
        assert any("web_sessions" in s for s in seen)
    finally:
        monkeypatch.delenv("SESSION_CACHE")
        get_settings.cache_clear()


def _entry() -> session_cache.CachedSession:
    expires = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    return session_cache.CachedSession({"id": 1}, expires, time.monotonic())


def test_a_lookup_that_began_before_a_change_is_not_kept() -> None:
    cache = session_cache.SessionCache(seconds=60)
    began = cache.generation
    cache.clear()  # a write to users or web_sessions happened meanwhile
    cache.put("hash", _entry(), began)
    assert cache.get("hash") is None
    cache.put("hash", _entry(), cache.generation)
    assert cache.get("hash") is not None


def test_an_entry_is_forgotten_after_its_seconds() -> None:
    cache = session_cache.SessionCache(seconds=0)
    cache.put("hash", _entry(), cache.generation)
    time.sleep(0.01)
    assert cache.get("hash") is None


def test_a_scale_out_process_remembers_nothing_until_it_hears_every_change(
    data_dir: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Why: with Redis, caching is on only while subscribed (tests/users/test_session_broadcast.py).
    assert session_cache.enabled()
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
    get_settings.cache_clear()
    assert not session_cache.enabled()


def test_a_remembered_user_is_the_persistent_row_a_query_would_give(client: TestClient) -> None:
    """Built from the cache with no query (issue 54), the user is the request session's
    persistent object: equal columns, nothing pending, and a change to it is an UPDATE."""
    user = logged_in_client(client, "ada@example.org", name="Ada")
    with session_factory()() as session:
        loaded = session.get(User, user.id)
        assert loaded is not None
        columns = {a.key: getattr(loaded, a.key) for a in User.__mapper__.column_attrs}
    expires = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    cached = session_cache.CachedSession(columns, expires, time.monotonic())
    with session_factory()() as session:
        remembered = _from_cache(session, cached)
        assert remembered is not None
        assert inspect(remembered).persistent
        assert not (session.new or session.dirty)
        assert {a.key: getattr(remembered, a.key) for a in User.__mapper__.column_attrs} == columns
        assert _from_cache(session, cached) is remembered  # one object per identity
        remembered.name = "Countess"
        session.commit()
    with session_factory()() as session:
        assert session.scalars(select(User.name).where(User.id == user.id)).one() == "Countess"
        assert session.scalar(select(func.count()).select_from(User)) == 1
