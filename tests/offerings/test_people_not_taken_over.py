"""People are not pulled in or taken over (issue 46): a roster's reply hides who had an account;
an instructor's set-password link never reaches an account whose owner chose a password or
that holds a place outside the instructor's offering."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.db import session_factory
from app.offerings.models import Offering, OfferingRole
from app.offerings.passwords import CHOSEN_BY_OWNER, ELSEWHERE
from app.offerings.service import enroll
from app.users.models import User
from app.users.password_links import CHOSEN_BY_OWNER as LINK_CHOSEN_BY_OWNER
from app.users.password_links import REFUSED_ELSEWHERE
from app.users.service import verify_password
from tests.offerings.test_password_link_routes import World, _mint, _new_id, _upload, _world
from tests.users.helpers import PASSWORD, form_token

NEW_PASSWORD = "a brand new passphrase"


def _path(url: str) -> str:
    return url.removeprefix("http://testserver")


def _set(client: TestClient, url: str) -> int:
    page = client.get(_path(url))
    if page.status_code != 200 or 'name="csrf_token"' not in page.text:
        return page.status_code
    token = url.split("token=", 1)[1]
    done = client.post(
        "/account/password",
        data={
            "token": token,
            "password": NEW_PASSWORD,
            "confirm": NEW_PASSWORD,
            "csrf_token": form_token(page.text),
        },
        follow_redirects=False,
    )
    return done.status_code


def _password_is(user_id: int, password: str) -> bool:
    with session_factory()() as session:
        user = session.get(User, user_id)
        assert user is not None
        return verify_password(user=user, password=password)


def _teach_b(world: World, user_id: int) -> None:
    with session_factory()() as session:
        offering = session.get(Offering, world.b)
        user = session.get(User, user_id)
        assert offering is not None and user is not None
        enroll(session=session, offering=offering, user=user, role=OfferingRole.instructor)


def test_the_roster_reply_does_not_say_which_emails_had_accounts(client: TestClient) -> None:
    world = _world()
    body = _upload(client, world)  # new@ has no account; ada@ made her own
    assert set(body) == {"offering", "enrolled", "password_links"}
    links = body["password_links"]
    assert isinstance(links, list)
    assert [sorted(link) for link in links] == [
        ["email", "expires_at", "mail", "url", "user_id"]
    ] * 2
    assert links[0]["mail"] == links[1]["mail"]  # both mailed alike (or neither), new or not
    assert [link["email"] for link in links] == ["new@example.org", "ada@example.org"]


def test_a_roster_link_sets_no_password_for_an_account_its_owner_made(client: TestClient) -> None:
    world = _world()
    links = _upload(client, world)["password_links"]
    assert isinstance(links, list)
    ada = next(link for link in links if link["email"] == "ada@example.org")
    page = client.get(_path(ada["url"]))
    assert page.status_code == 400 and LINK_CHOSEN_BY_OWNER in page.text
    assert _set(client, ada["url"]) == 400
    assert _password_is(world.ids["ada"], PASSWORD)


def test_no_link_once_the_account_teaches_in_another_offering(client: TestClient) -> None:
    world = _world()
    links = _upload(client, world)["password_links"]
    assert isinstance(links, list)
    new = _new_id()
    early = next(link for link in links if link["email"] == "new@example.org")
    _teach_b(world, new)  # the roster's account became an instructor of B
    refused = _mint(client, world, "teacher", new)
    assert refused.status_code == 403 and refused.json()["detail"] == ELSEWHERE
    page = client.get(_path(early["url"]))  # a link made before: refused when used
    assert page.status_code == 400 and REFUSED_ELSEWHERE in page.text
    assert _set(client, early["url"]) == 400
    assert not _password_is(new, NEW_PASSWORD)


def test_no_link_once_the_owner_chose_a_password(client: TestClient) -> None:
    world = _world()
    _upload(client, world)
    new = _new_id()
    first = _mint(client, world, "teacher", new)
    assert first.status_code == 200
    assert _set(client, first.json()["url"]) == 303
    assert _password_is(new, NEW_PASSWORD)
    again = _mint(client, world, "teacher", new)
    assert again.status_code == 403 and again.json()["detail"] == CHOSEN_BY_OWNER
    assert _mint(client, world, "admin", new).status_code == 200  # a site admin still may
