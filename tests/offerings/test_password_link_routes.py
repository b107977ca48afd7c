"""Who may make a set-password link: an offering's instructors for the accounts its roster
created, site administrators for any non-administrator; never students or TAs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape
from urllib.parse import unquote

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.offerings.models import Offering, OfferingRole
from app.offerings.passwords import ADMIN_TARGET, NOT_FROM_ROSTER
from app.offerings.service import create_offering, enroll
from app.users.models import User
from app.users.service import issue_api_token
from tests.users.helpers import PASSWORD, form_token, login, make_user

ROSTER = "email,name,role\nnew@example.org,<b>Newt</b>,student\nada@example.org,Ada,student\n"


@dataclass
class World:
    a: int
    b: int
    headers: dict[str, dict[str, str]]
    ids: dict[str, int]


def _bearer(user: User) -> dict[str, str]:
    with session_factory()() as session:
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _world() -> World:
    people = {
        name: make_user(f"{name}@example.org", name=name.title())
        for name in ("teacher", "ta", "ada", "admin", "other")
    }
    with session_factory()() as session:
        a = create_offering(session=session, course_slug="positional-embeddings", title="A")
        b = create_offering(session=session, course_slug="positional-embeddings", title="B")
        for name, role, offering in (
            ("teacher", OfferingRole.instructor, a),
            ("ta", OfferingRole.ta, a),
            ("ada", OfferingRole.student, a),
            ("other", OfferingRole.instructor, b),
        ):
            found = session.get(User, people[name].id)
            assert found is not None
            enroll(session=session, offering=offering, user=found, role=role)
        admin = session.get(User, people["admin"].id)
        assert admin is not None
        admin.is_admin = True
        session.commit()
        ids = {name: user.id for name, user in people.items()}
        return World(a.id, b.id, {n: _bearer(u) for n, u in people.items()}, ids)


def _upload(client: TestClient, world: World) -> dict[str, object]:
    done = client.post(
        f"/offerings/{world.a}/api/instructor/roster",
        json={"csv": ROSTER},
        headers=world.headers["teacher"],
    )
    assert done.status_code == 200, done.text
    body: dict[str, object] = done.json()
    return body


def _new_id() -> int:
    with session_factory()() as session:
        found = session.scalar(select(User.id).where(User.email == "new@example.org"))
        assert found is not None
        return found


def test_the_roster_upload_hands_back_one_link_per_person_listed(client: TestClient) -> None:
    world = _world()
    body = _upload(client, world)
    links = body["password_links"]
    emails = [link["email"] for link in links]  # type: ignore[attr-defined]
    assert isinstance(links, list) and emails == ["new@example.org", "ada@example.org"]
    url = links[0]["url"]
    assert url.startswith("http://testserver/account/password?token=")
    page = client.get(url.removeprefix("http://testserver"))
    assert page.status_code == 200 and "new@example.org" in page.text


def _mint(client: TestClient, world: World, who: str, user_id: int, offering: int | None = None):  # type: ignore[no-untyped-def]
    return client.post(
        f"/offerings/{offering or world.a}/api/instructor/students/{user_id}/password-link",
        headers=world.headers[who],
    )


def test_an_instructor_resets_only_accounts_their_roster_created(client: TestClient) -> None:
    world = _world()
    _upload(client, world)
    new = _new_id()
    made = _mint(client, world, "teacher", new)
    assert made.status_code == 200, made.text
    assert made.json()["email"] == "new@example.org"
    # Ada made her own account (the roster only enrolled her): not the instructor's to reset.
    refused = _mint(client, world, "teacher", world.ids["ada"])
    assert refused.status_code == 403 and refused.json()["detail"] == NOT_FROM_ROSTER
    assert _mint(client, world, "teacher", world.ids["ta"]).status_code == 403


def test_students_tas_and_other_offerings_cannot_make_links(client: TestClient) -> None:
    world = _world()
    _upload(client, world)
    new = _new_id()
    student = _mint(client, world, "ada", new)
    assert student.status_code == 403 and "instructors only" in student.text
    ta = _mint(client, world, "ta", new)
    assert ta.status_code == 403
    assert _mint(client, world, "other", new).status_code == 403  # not in A
    assert _mint(client, world, "other", new, world.b).status_code == 404  # not in B
    visitor = client.post(f"/offerings/{world.a}/api/instructor/students/{new}/password-link")
    assert visitor.status_code == 401


def test_a_site_administrator_may_reset_anyone_but_an_administrator(client: TestClient) -> None:
    world = _world()
    assert _mint(client, world, "admin", world.ids["ada"]).status_code == 200
    with session_factory()() as session:
        admin = session.get(User, world.ids["admin"])
        offering = session.get(Offering, world.a)
        assert admin is not None and offering is not None
        enroll(session=session, offering=offering, user=admin, role=OfferingRole.student)
    refused = _mint(client, world, "admin", world.ids["admin"])
    assert refused.status_code == 403 and refused.json()["detail"] == ADMIN_TARGET


def _as(client: TestClient, email: str) -> None:
    client.cookies.clear()
    assert login(client, email, password=PASSWORD).status_code == 303


def test_the_roster_page_shows_and_offers_the_links_for_download(client: TestClient) -> None:
    world = _world()
    _as(client, "teacher@example.org")
    page = client.get(f"/offerings/{world.a}/instructor/roster")
    assert page.status_code == 200
    done = client.post(
        f"/offerings/{world.a}/instructor/roster",
        data={"csv": ROSTER, "csrf_token": form_token(page.text)},
    )
    assert done.status_code == 200, done.text
    assert "Enrolled 2 people." in done.text
    assert f'action="/offerings/{world.a}/instructor/roster"' in done.text
    assert "<b>Newt</b>" not in done.text
    download = re.search(r'href="data:text/csv;charset=utf-8,([^"]+)"', done.text)
    assert download is not None
    rows = unquote(unescape(download[1])).splitlines()
    assert rows[0] == "email,url,expires_at"
    assert rows[1].startswith("new@example.org,http://testserver/account/password?token=")
    bad = client.post(
        f"/offerings/{world.a}/instructor/roster",
        data={"csv": "name\n<i>x</i>\n", "csrf_token": form_token(page.text)},
    )
    assert bad.status_code == 422 and "must name the columns" in bad.text
    assert "&lt;i&gt;x&lt;/i&gt;" in bad.text  # kept in the form, escaped
    no_token = client.post(f"/offerings/{world.a}/instructor/roster", data={"csv": ROSTER})
    assert no_token.status_code == 403


def test_the_roster_page_takes_a_file(client: TestClient) -> None:
    world = _world()
    _as(client, "teacher@example.org")
    page = client.get(f"/offerings/{world.a}/instructor/roster")
    done = client.post(
        f"/offerings/{world.a}/instructor/roster",
        data={"csrf_token": form_token(page.text)},
        files={"file": ("roster.csv", ROSTER.encode(), "text/csv")},
    )
    assert done.status_code == 200, done.text
    assert "new@example.org" in done.text


def test_the_reset_button_on_a_persons_page(client: TestClient) -> None:
    world = _world()
    _upload(client, world)
    new = _new_id()
    _as(client, "teacher@example.org")
    person = client.get(f"/offerings/{world.a}/instructor/students/{new}")
    assert person.status_code == 200 and "Make a set-password link" in person.text
    assert f'action="/offerings/{world.a}/instructor/students/{new}/password-link"' in person.text
    shown = client.post(
        f"/offerings/{world.a}/instructor/students/{new}/password-link",
        data={"csrf_token": form_token(person.text)},
    )
    assert shown.status_code == 200, shown.text
    assert "http://testserver/account/password?token=" in shown.text
    _as(client, "ta@example.org")
    ta_page = client.get(f"/offerings/{world.a}/instructor/students/{new}")
    refused = client.post(
        f"/offerings/{world.a}/instructor/students/{new}/password-link",
        data={"csrf_token": form_token(ta_page.text)},
    )
    assert refused.status_code == 403
