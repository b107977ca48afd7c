"""Invitations and set-password links by e-mail: sent through SMTP when it is configured (a
local catcher here, never a real server), shown to copy when it is not or when sending fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import get_settings
from app.db import session_factory
from app.users.models import User
from tests.mailcatcher import Catcher, free_port, smtp_catcher
from tests.offerings.test_password_link_routes import ROSTER, _as, _new_id, _upload, _world
from tests.users.helpers import form_token

__all__ = ["smtp_catcher"]
NEW_PASSWORD = "a long new passphrase 42"


def test_the_roster_mails_each_person_their_link_and_the_link_sets_a_password(
    client: TestClient, smtp_catcher: Catcher
) -> None:
    world = _world()
    body = _upload(client, world)
    links = body["password_links"]
    assert isinstance(links, list)
    assert [link["mail"] for link in links] == [
        "sent to new@example.org",
        "sent to ada@example.org",
    ]
    mails = smtp_catcher.to("new@example.org")
    assert len(mails) == 1 and len(smtp_catcher.messages) == 2
    mail = mails[0]
    assert mail["From"] == "Course <course@example.org>"
    assert "A" in mail["Subject"] and "positional" in mail["Subject"].lower()
    path = smtp_catcher.link_in(mail)
    assert links[0]["url"].endswith(path)
    page = client.get(path)
    assert page.status_code == 200 and "new@example.org" in page.text
    done = client.post(
        path.split("?")[0],
        data={
            "token": path.split("token=")[1],
            "password": NEW_PASSWORD,
            "confirm": NEW_PASSWORD,
            "csrf_token": form_token(page.text),
        },
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == "new@example.org"))
        assert user is not None and user.password_set


def test_without_smtp_the_links_are_shown_to_copy_and_nothing_is_sent(client: TestClient) -> None:
    world = _world()
    body = _upload(client, world)
    links = body["password_links"]
    assert isinstance(links, list)
    assert {link["mail"] for link in links} == {"not sent: e-mail is not set up; copy the link"}
    _as(client, "teacher@example.org")
    page = client.get(f"/offerings/{world.a}/instructor/roster")
    done = client.post(
        f"/offerings/{world.a}/instructor/roster",
        data={"csv": ROSTER, "csrf_token": form_token(page.text)},
    )
    assert "E-mail is not set up on this site: copy each link" in done.text
    assert "http://testserver/account/password?token=" in done.text


def test_a_failed_send_says_why_and_keeps_the_link_to_copy(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("SMTP_PORT", str(free_port()))  # nobody listens
    monkeypatch.setenv("SMTP_SENDER", "course@example.org")
    get_settings.cache_clear()
    world = _world()
    body = _upload(client, world)  # the enrolment is kept although the mail fails
    links = body["password_links"]
    assert isinstance(links, list) and len(links) == 2
    status = links[0]["mail"]
    assert status.startswith("could not send: ") and status.endswith("; copy the link"), status
    assert "refused" in status or "connect" in status
    with session_factory()() as session:
        assert session.scalar(select(User.id).where(User.email == "new@example.org"))


def test_the_reset_button_mails_the_link_to_its_owner(
    client: TestClient, smtp_catcher: Catcher
) -> None:
    world = _world()
    _upload(client, world)
    smtp_catcher.messages.clear()
    new = _new_id()
    api = client.post(
        f"/offerings/{world.a}/api/instructor/students/{new}/password-link",
        headers=world.headers["teacher"],
    )
    assert api.status_code == 200 and api.json()["mail"] == "sent to new@example.org"
    _as(client, "teacher@example.org")
    person = client.get(f"/offerings/{world.a}/instructor/students/{new}")
    shown = client.post(
        f"/offerings/{world.a}/instructor/students/{new}/password-link",
        data={"csrf_token": form_token(person.text)},
    )
    assert shown.status_code == 200 and "Sent to new@example.org" in shown.text
    assert len(smtp_catcher.to("new@example.org")) == 2
    # The latest link works (a later one replaces none: both are bound to the same password).
    assert client.get(smtp_catcher.link_in(smtp_catcher.messages[-1])).status_code == 200


def test_a_ta_or_another_offering_triggers_no_mail(
    client: TestClient, smtp_catcher: Catcher
) -> None:
    world = _world()
    _upload(client, world)
    smtp_catcher.messages.clear()
    new = _new_id()
    for who, offering in (("ta", world.a), ("other", world.a), ("other", world.b)):
        refused = client.post(
            f"/offerings/{offering}/api/instructor/students/{new}/password-link",
            headers=world.headers[who],
        )
        assert refused.status_code in (403, 404)
    assert smtp_catcher.messages == []


def test_the_roster_command_mails_new_accounts_when_asked(
    data_dir: object, tmp_path: Path, capsys: pytest.CaptureFixture[str], smtp_catcher: Catcher
) -> None:
    from app.cli import main

    roster = tmp_path / "roster.csv"
    roster.write_text("email,name,role\nbob@example.org,Bob,student\n")
    site = "https://course.example.edu"
    assert main(["offerings", "roster", "1", str(roster), "--mail", site]) == 0
    out = capsys.readouterr().out
    assert "set-password link for bob@example.org: /account/password?token=" in out
    assert "mail to bob@example.org: sent to bob@example.org" in out
    [mail] = smtp_catcher.to("bob@example.org")
    assert f"{site}/account/password?token=" in str(mail.get_payload(decode=True), "utf-8")
