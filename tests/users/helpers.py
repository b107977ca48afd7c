"""Browser-style helpers shared by the account, quiz and progress tests."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from httpx2 import Response

from app.db import session_factory
from app.users.models import User
from app.users.service import create_user

PASSWORD = "correct horse battery"
_META = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_from(html: str) -> str:
    """The token a page hands to its forms (the <meta> tag)."""
    match = _META.search(html)
    assert match, "the page has no csrf-token meta tag"
    return match.group(1)


def form_token(html: str) -> str:
    """The hidden csrf_token field of the first form on the page."""
    match = _FIELD.search(html)
    assert match, "the page has no form with a csrf_token field"
    return match.group(1)


def make_user(email: str, name: str = "Ada", password: str = PASSWORD) -> User:
    """Create an account directly in the database."""
    with session_factory()() as session:
        user, _ = create_user(session=session, email=email, password=password, name=name)
        return user


def login(
    client: TestClient, email: str, password: str = PASSWORD, next_url: str = "/"
) -> Response:
    """Log in through the real form (token included), without following the redirect."""
    token = form_token(client.get("/login").text)
    return client.post(
        "/login",
        data={"email": email, "password": password, "next": next_url, "csrf_token": token},
        follow_redirects=False,
    )


def signup(client: TestClient, **fields: str) -> Response:
    """Sign up through the real form, without following the redirect."""
    token = form_token(client.get("/signup").text)
    data = {
        "email": "ada@example.org",
        "name": "Ada Lovelace",
        "password": PASSWORD,
        "confirm": PASSWORD,
        "next": "/",
        **fields,
        "csrf_token": fields.get("csrf_token", token),
    }
    return client.post("/signup", data=data, follow_redirects=False)


def logged_in_client(client: TestClient, email: str, name: str = "Ada") -> User:
    """Create an account and log this client in as it."""
    user = make_user(email, name=name)
    response = login(client, email)
    assert response.status_code == 303, response.text
    return user


def make_instructor(user_id: int) -> None:
    """Make an account an instructor of the first offering (what old URLs mean)."""
    from app.offerings.models import OfferingRole
    from app.offerings.service import enroll, first_offering
    from app.users.models import Role

    with session_factory()() as session:
        user = session.get(User, user_id)
        assert user is not None
        user.role = Role.instructor
        offering = first_offering(session=session)
        enroll(session=session, offering=offering, user=user, role=OfferingRole.instructor)
