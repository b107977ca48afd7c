"""One-time set-password links: signed, expiring, single use, bound to one account."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.config import get_settings
from app.db import session_factory
from app.models_base import utcnow
from app.users.models import User, WebSession
from app.users.password_links import (
    EXPIRED,
    INVALID,
    USED,
    LinkError,
    make_link,
    set_password_with_link,
    user_for_link,
)
from app.users.sessions import authenticate
from tests.users.helpers import form_token, login, make_user

NEW_PASSWORD = "a brand new secret"


def _link(email: str) -> str:
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == email))
        assert user is not None
        return make_link(user, by_admin=True).token  # the mechanics; who may: offerings tests


def _set(client: TestClient, token: str, password: str = NEW_PASSWORD, **extra: str):  # type: ignore[no-untyped-def]
    page = client.get(f"/account/password?token={token}")
    assert page.status_code == 200, page.text
    data = {"token": token, "password": password, "confirm": password, **extra}
    data.setdefault("csrf_token", form_token(page.text))
    return client.post("/account/password", data=data, follow_redirects=False)


def test_the_link_sets_the_password_once_and_logs_in(client: TestClient) -> None:
    make_user("ada@example.org")
    token = _link("ada@example.org")
    page = client.get(f"/account/password?token={token}")
    assert "ada@example.org" in page.text and page.headers["referrer-policy"] == "no-referrer"
    done = _set(client, token)
    assert done.status_code == 303 and done.headers["location"] == "/"
    assert "session=" in done.headers["set-cookie"]
    with session_factory()() as session:
        assert authenticate(session=session, email="ada@example.org", password=NEW_PASSWORD)
    again = client.get(f"/account/password?token={token}")
    assert again.status_code == 400 and USED in again.text.replace("&#39;", "'")
    client.cookies.clear()
    assert login(client, "ada@example.org", password=NEW_PASSWORD).status_code == 303


def test_a_used_link_is_refused_on_the_form_too(client: TestClient) -> None:
    make_user("ada@example.org")
    token = _link("ada@example.org")
    second = _link("ada@example.org")  # made before the first was used: ends with it
    page = client.get(f"/account/password?token={token}")
    assert _set(client, token).status_code == 303
    data = {"token": token, "password": "another secret!", "confirm": "another secret!"}
    replay = client.post("/account/password", data={**data, "csrf_token": form_token(page.text)})
    assert replay.status_code == 400
    with session_factory()() as session:
        with pytest.raises(LinkError, match="already been used"):
            user_for_link(session=session, token=second)
        assert authenticate(session=session, email="ada@example.org", password=NEW_PASSWORD)


def test_the_link_expires(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PASSWORD_LINK_HOURS", "2")
    get_settings.cache_clear()
    make_user("ada@example.org")
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == "ada@example.org"))
        assert user is not None
        link = make_link(user, by_admin=True)
        assert link.expires_at - utcnow() <= dt.timedelta(hours=2)
        later = utcnow() + dt.timedelta(hours=1, minutes=59)
        assert user_for_link(session=session, token=link.token, now=later).id == user.id
        with pytest.raises(LinkError) as refused:
            set_password_with_link(
                session=session,
                token=link.token,
                password=NEW_PASSWORD,
                now=utcnow() + dt.timedelta(hours=2, seconds=5),
            )
        assert str(refused.value) == EXPIRED


def test_an_expired_link_page_says_so(client: TestClient) -> None:
    make_user("ada@example.org")
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == "ada@example.org"))
        assert user is not None
        token = make_link(user, now=utcnow() - dt.timedelta(days=30), by_admin=True).token
    page = client.get(f"/account/password?token={token}")
    assert page.status_code == 400 and "This link has expired" in page.text
    assert 'name="password"' not in page.text


def test_a_link_cannot_be_turned_to_another_account(client: TestClient) -> None:
    ada = make_user("ada@example.org")
    bob = make_user("bob@example.org")
    token = _link("ada@example.org")
    forged = token.replace(f"{ada.id}.", f"{bob.id}.", 1)
    assert forged != token
    with session_factory()() as session, pytest.raises(LinkError, match="not valid"):
        user_for_link(session=session, token=forged)
    page = client.get(f"/account/password?token={forged}")
    assert page.status_code == 400 and INVALID.split(" (")[0] in page.text
    # The form carries no email: the link's own account is the only one it can change.
    assert _set(client, token, email="bob@example.org").status_code == 303
    with session_factory()() as session:
        assert authenticate(session=session, email="bob@example.org", password=NEW_PASSWORD) is None
        assert authenticate(session=session, email="ada@example.org", password=NEW_PASSWORD)


def test_setting_the_password_ends_the_accounts_sessions(client: TestClient) -> None:
    make_user("ada@example.org")
    assert login(client, "ada@example.org").status_code == 303
    other = TestClient(client.app)
    assert _set(other, _link("ada@example.org")).status_code == 303
    with session_factory()() as session:
        assert session.scalar(select(func.count(WebSession.id))) == 1  # the new one only


def test_the_form_needs_its_csrf_token(client: TestClient) -> None:
    make_user("ada@example.org")
    token = _link("ada@example.org")
    client.get(f"/account/password?token={token}")  # a pre-session cookie, but no form token
    refused = client.post(
        "/account/password",
        data={"token": token, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD},
    )
    assert refused.status_code == 403
    with session_factory()() as session:
        assert user_for_link(session=session, token=token).email == "ada@example.org"


def test_weak_or_mismatched_passwords_keep_the_link(client: TestClient) -> None:
    make_user("ada@example.org")
    token = _link("ada@example.org")
    weak = _set(client, token, password="short")
    assert weak.status_code == 400 and "at least 8 characters" in weak.text
    page = client.get(f"/account/password?token={token}")
    mismatch = client.post(
        "/account/password",
        data={
            "token": token,
            "password": NEW_PASSWORD,
            "confirm": "something else",
            "csrf_token": form_token(page.text),
        },
    )
    assert mismatch.status_code == 400 and "two passwords are different" in mismatch.text
    assert _set(client, token).status_code == 303


def test_guessing_links_is_rate_limited_as_logins_are(client: TestClient) -> None:
    make_user("ada@example.org")
    good = _link("ada@example.org")
    limit = get_settings().auth_max_failures
    for n in range(limit):
        assert client.get(f"/account/password?token=1.2.x.guess{n}").status_code == 400
    blocked = client.get(f"/account/password?token={good}")
    assert blocked.status_code == 429 and "Too many attempts" in blocked.text
    assert int(blocked.headers["retry-after"]) > 0


def test_an_instructors_link_sets_no_password_its_owner_chose(client: TestClient) -> None:
    make_user("own@example.org")
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == "own@example.org"))
        assert user is not None
        token = make_link(user).token
        with pytest.raises(LinkError, match="already has a password its owner chose"):
            user_for_link(session=session, token=token)
