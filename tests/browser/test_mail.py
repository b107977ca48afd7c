"""Invitations by e-mail in Chromium: an instructor uploads a roster on a server whose SMTP is a
local catcher; the page says each mail was sent; the new student follows the link from the mail,
chooses a password and is signed in (issue 49)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD, Server, Shots, launch, log_in
from tests.mailcatcher import Catcher, free_port

TEACHER = "mail-teacher@example.org"
NEWBIE = "newbie@example.org"


@pytest.fixture
def mailing_server(tmp_path: Path) -> Iterator[tuple[Server, Catcher]]:
    """A second server (no grader needed) whose SMTP settings point at a local catcher."""
    catcher = Catcher("127.0.0.1", free_port())
    controller = Controller(catcher, hostname=catcher.host, port=catcher.port)
    controller.start()
    try:
        with launch(
            tmp_path / "var",
            warm=False,
            SMTP_HOST=catcher.host,
            SMTP_PORT=str(catcher.port),
            SMTP_SENDER="Course <course@example.org>",
        ) as running:
            yield running, catcher
    finally:
        controller.stop()


def test_a_roster_invitation_arrives_by_mail_and_its_link_sets_a_password(
    browser: Any, mailing_server: tuple[Server, Catcher], shots: Shots
) -> None:
    server, catcher = mailing_server
    server.cli("users", "create", "--email", TEACHER, "--password", PASSWORD, "--name", "T")
    server.cli("offerings", "enroll", "1", TEACHER, "--role", "instructor")
    context = browser.new_context(base_url=server.url)
    context.set_default_timeout(20_000)
    try:
        page = context.new_page()
        log_in(page, TEACHER, "/offerings/1/instructor/roster")
        page.get_by_label("or paste it here").fill(f"email,name,role\n{NEWBIE},Newbie,student\n")
        page.get_by_role("button", name="Upload the roster").click()
        expect(page.locator(".mail-status")).to_have_text(f"sent to {NEWBIE}")
        shots.take(page, "roster-mailed")
        [mail] = catcher.to(NEWBIE)
        path = catcher.link_in(mail)

        student = browser.new_context(base_url=server.url).new_page()
        student.goto(path)
        student.get_by_label("New password").fill("a long new passphrase 42")
        student.get_by_label("The same password again").fill("a long new passphrase 42")
        student.get_by_role("button", name="Set my password").click()
        expect(student.get_by_role("button", name="Log out")).to_have_count(1)
        shots.take(student, "signed-in-from-mail")
    finally:
        context.close()
