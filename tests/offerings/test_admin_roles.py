"""A site administrator grants roles on a page: staff of an offering, or another administrator
(issue 49)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import first_offering, role_in
from app.users.models import User
from tests.offerings.test_admin_offerings import _admin
from tests.users.helpers import PASSWORD, form_token, login, make_user


def _first_id() -> int:
    with session_factory()() as session:
        return first_offering(session=session).id


def test_an_admin_gives_a_ta_role_and_makes_another_admin(client: TestClient) -> None:
    headers = _admin()
    ta = make_user("ta@example.org", name="Tia")
    first = _first_id()
    made = client.post(
        "/api/admin/roles",
        json={"email": "TA@example.org", "role": "ta", "offering": first},
        headers=headers,
    )
    assert made.status_code == 200, made.text
    with session_factory()() as session:
        assert role_in(session=session, user_id=ta.id, offering_id=first) == OfferingRole.ta
    unknown = client.post(
        "/api/admin/roles",
        json={"email": "nobody@example.org", "role": "ta", "offering": first},
        headers=headers,
    )
    assert unknown.status_code == 422 and "no account" in unknown.json()["detail"]
    no_place = client.post(
        "/api/admin/roles", json={"email": "ta@example.org", "role": "ta"}, headers=headers
    )
    assert no_place.status_code == 422
    other = make_user("other@example.org")
    login(client, "admin@example.org", PASSWORD)
    page = client.get("/admin/offerings").text
    sent = client.post(
        "/admin/roles",
        data={
            "csrf_token": form_token(page.split('id="roles"', 1)[1]),
            "email": other.email,
            "role": "admin",
            "offering": str(first),
        },
        follow_redirects=False,
    )
    assert sent.status_code == 303
    with session_factory()() as session:
        found = session.get(User, other.id)
        assert found is not None and found.is_admin


def test_only_site_admins_grant_roles(client: TestClient) -> None:
    make_user("t@example.org")
    login(client, "t@example.org", PASSWORD)
    page = client.get("/").text
    refused = client.post(
        "/admin/roles",
        data={"csrf_token": form_token(page), "email": "t@example.org", "role": "admin"},
    )
    assert refused.status_code == 403
