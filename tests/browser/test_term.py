"""A term seen from both sides in Chromium: the student sees the due date, the late policy, a late
mark and the score that counts; a TA writes on a line of their code and answers a regrade
request; the student reads both on the result page and on their home page (issue 49)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD, Server, Shots, _api, log_in
from tests.browser.helpers import GOOD, SLUG

STUDENT = "term-student@example.org"
TA = "term-ta@example.org"
TEACHER = "term-teacher@example.org"


def _accounts(server: Server) -> dict[str, str]:
    """A student, a TA and an instructor of the first offering; the instructor's token."""
    for email, name in ((STUDENT, "Sam Student"), (TA, "Tia Assistant"), (TEACHER, "Ian Teach")):
        server.cli("users", "create", "--email", email, "--password", PASSWORD, "--name", name)
    offering = next(o for o in _offerings(server) if o["course"] == "positional-embeddings")
    server.cli("offerings", "enroll", str(offering["id"]), TA, "--role", "ta")
    server.cli("offerings", "enroll", str(offering["id"]), TEACHER, "--role", "instructor")
    server.cli("offerings", "enroll", str(offering["id"]), STUDENT, "--role", "student")
    return {e: server.cli("users", "token", "--email", e) for e in (STUDENT, TEACHER)}


def _offerings(server: Server) -> list[dict[str, Any]]:
    import json

    found: list[dict[str, Any]] = json.loads(server.cli("offerings", "list", "--json"))
    return found


def test_the_student_sees_dates_and_what_staff_wrote(
    context_factory: Any, server: Server, shots: Shots
) -> None:
    tokens = _accounts(server)
    teacher, student = tokens[TEACHER], tokens[STUDENT]
    yesterday = (dt.datetime.now(dt.UTC) - dt.timedelta(hours=20)).replace(microsecond=0)
    _api(
        server.url + "/api/instructor/late-policy",
        teacher,
        "POST",
        {"mode": "penalty", "percent_per_day": 10, "max_percent": 50},
    )
    _api(
        server.url + "/api/instructor/due-dates",
        teacher,
        "POST",
        {"kind": "exercise", "slug": SLUG, "due": yesterday.isoformat()},
    )
    sent = _api(
        server.url + "/api/submissions",
        student,
        "POST",
        {"exercise": SLUG, "code": GOOD, "framework": "numpy"},
    )

    page = context_factory().new_page()
    log_in(page, STUDENT, f"/exercises/{SLUG}")
    expect(page.locator("#due")).to_contain_text(f"Due {yesterday.strftime('%Y-%m-%d %H:%M')} UTC")
    expect(page.locator("#due")).to_contain_text("Late work loses 10% of its score per day late")
    shots.take(page, "due-date")
    page.goto(f"/exercises/{SLUG}/results/{sent['id']}")
    expect(page.locator(".late-mark")).to_contain_text(
        "90% counts after the late penalty", timeout=120_000
    )
    expect(page.locator(".counted")).to_contain_text("Score that counts: 90%")
    page.get_by_label("Think this was graded wrongly?").fill("I was ill yesterday.")
    page.get_by_role("button", name="Ask for a regrade").click()
    expect(page.locator("#regrade")).to_contain_text("Waiting for an answer")
    shots.take(page, "late-and-asked")

    ta = context_factory().new_page()
    log_in(ta, TA, "/instructor/regrade-requests")
    expect(ta.locator("table.regrade-requests")).to_contain_text("I was ill yesterday.")
    ta.get_by_label("Answer (the student sees it)").fill("Get well soon; full marks.")
    ta.get_by_label("New score (%, empty keeps it)").fill("100")
    ta.get_by_role("button", name="Answer").click()
    expect(ta.locator("table.regrade-requests")).to_contain_text("new score 100%")
    student_id = _api(server.url + f"/api/submissions/{sent['id']}", teacher)["id"]
    ta.goto("/instructor/students")
    ta.get_by_role("link", name="Sam Student").click()
    form = ta.locator(f"#submission-{student_id} form.comment-form")
    form.get_by_label("Comment to the student").fill("Line 1: a clear docstring.")
    form.get_by_label("On line (optional)").fill("1")
    form.get_by_role("button", name="Add comment").click()
    expect(ta.locator(".saved, [role=status]").first).to_be_visible()
    shots.take(ta, "ta-commented")

    page.goto(f"/exercises/{SLUG}/results/{sent['id']}")
    expect(page.locator("#L1 .line-comment")).to_contain_text("a clear docstring")
    expect(page.locator("#regrade")).to_contain_text("Get well soon; full marks.")
    expect(page.locator(".override")).to_contain_text("100%")
    page.goto("/")
    expect(page.locator(".staff-notes")).to_contain_text("An answer to your regrade request")
    expect(page.locator(".staff-notes")).to_contain_text("a clear docstring")
    shots.take(page, "home-notes")
