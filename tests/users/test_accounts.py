"""Sign up, log in and log out in the browser, with a server-side session cookie."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.config import get_settings
from app.db import session_factory
from app.main import create_app
from app.users.models import User, WebSession
from app.users.sessions import safe_next
from tests.users.helpers import PASSWORD, form_token, login, make_user, signup


def _session_rows() -> int:
    with session_factory()() as session:
        return int(session.scalar(select(func.count(WebSession.id))) or 0)


def test_signup_logs_in_and_logout_ends_the_session(client: TestClient) -> None:
    response = signup(client, next="/lessons/learned-absolute")
    assert response.status_code == 303
    assert response.headers["location"] == "/lessons/learned-absolute"
    cookie = response.headers["set-cookie"].lower()
    assert cookie.startswith("session=") and "httponly" in cookie and "samesite=lax" in cookie
    assert f"max-age={14 * 86400}" in cookie and "secure" not in cookie
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == "ada@example.org"))
        assert user is not None and user.name == "Ada Lovelace"
        assert user.password_hash.startswith("$argon2") and PASSWORD not in user.password_hash
    assert _session_rows() == 1

    home = client.get("/").text
    assert "Log out" in home and "(Ada Lovelace)" in home and 'href="/login' not in home

    old_cookie = client.cookies.get("session")
    response = client.post("/logout", data={"csrf_token": form_token(home)}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
    assert _session_rows() == 0
    assert "Log in" in client.get("/").text
    # The old cookie is worthless once the row is gone, even if someone copied it.
    client.cookies.set("session", old_cookie or "")
    assert "Log out" not in client.get("/").text


def test_login_sets_a_fresh_session_and_shows_the_name(client: TestClient) -> None:
    make_user("grace@example.org", name="Grace")
    response = login(client, "Grace@Example.org ", next_url="/exercises/position-embedding-gather")
    assert response.status_code == 303
    assert response.headers["location"] == "/exercises/position-embedding-gather"
    assert "Log out" in client.get("/").text and "(Grace)" in client.get("/").text
    first = client.cookies.get("session")
    assert client.get("/login", follow_redirects=False).status_code == 303  # already in
    again = login(client, "grace@example.org")
    assert again.status_code == 303
    # Logging in again replaces the session instead of keeping the old token alive.
    assert client.cookies.get("session") != first and _session_rows() == 1


def test_secure_cookie_in_production(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_ENV", "production")
    monkeypatch.setenv("SECRET_KEY", "x" * 48)
    monkeypatch.delenv("PASSWORD_HASH_COST")  # production hashes at the standard cost
    get_settings.cache_clear()
    make_user("prod@example.org")
    with TestClient(create_app(), base_url="https://testserver") as client:
        response = login(client, "prod@example.org")
        assert response.status_code == 303
        assert "secure" in response.headers["set-cookie"].lower()
        assert "Log out" in client.get("/").text


@pytest.mark.parametrize(
    ("email", "password"),
    [("grace@example.org", "wrong password"), ("nobody@example.org", PASSWORD)],
)
def test_failed_login_says_the_same_thing_and_keeps_the_email(
    client: TestClient, email: str, password: str
) -> None:
    make_user("grace@example.org")
    response = login(client, email, password=password)
    assert response.status_code == 401
    assert "The email or password is wrong." in response.text
    assert f'value="{email}"' in response.text
    assert password not in response.text
    assert "session" not in response.cookies


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"password": "short", "confirm": "short"}, "at least 8 characters"),
        ({"confirm": "something else"}, "The two passwords are different"),
        ({"email": "not-an-email"}, "is not an email address"),
        ({"name": "  "}, "Enter your name"),
        ({"password": "password", "confirm": "password"}, "too common"),
    ],
)
def test_signup_errors_keep_the_typed_fields(
    client: TestClient, fields: dict[str, str], message: str
) -> None:
    data = {"email": "ada@example.org", "name": "Ada Lovelace", **fields}
    response = signup(client, **data)
    assert response.status_code == 400
    assert message in response.text
    assert f'value="{data["email"]}"' in response.text
    if data["name"].strip():
        assert 'value="Ada Lovelace"' in response.text
    assert PASSWORD not in response.text and "session" not in response.cookies


def test_signup_with_a_taken_email_is_refused(client: TestClient) -> None:
    make_user("ada@example.org", password="another good one")
    response = signup(client, email="ADA@example.org")
    assert response.status_code == 400
    assert "already exists" in response.text and 'href="/login' in response.text


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example/steal",
        "https://evil.example/",
        "/\\evil.example",
        "/\t/evil.example",
        "javascript:alert(1)",
        "evil.example",
        "",
    ],
)
def test_next_never_leaves_the_site(client: TestClient, target: str) -> None:
    make_user("grace@example.org")
    response = login(client, "grace@example.org", next_url=target)
    assert response.status_code == 303 and response.headers["location"] == "/"


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/lessons/learned-absolute#quiz", "/lessons/learned-absolute#quiz"),
        ("/exercises/x?framework=torch", "/exercises/x?framework=torch"),
        ("//evil.example", "/"),
        ("/%2F/evil.example", "/%2F/evil.example"),
        ("https:/evil.example", "/"),
        (None, "/"),
    ],
)
def test_safe_next(target: str | None, expected: str) -> None:
    assert safe_next(target) == expected


def test_login_page_carries_next_and_a_token(client: TestClient) -> None:
    html = client.get("/login?next=/lessons/why-position").text
    assert 'name="next" value="/lessons/why-position"' in html
    assert form_token(html)
    assert 'name="next" value="/"' in client.get("/login?next=https://evil.example").text
