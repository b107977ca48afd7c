"""The editor's other paths: the keyboard, no JavaScript at all, and an ended session."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import Server, Shots, log_in, sign_up
from tests.browser.helpers import (
    EXERCISE,
    GOOD,
    GRADE_TIMEOUT_MS,
    editor_text,
    own_submissions,
    replace_code,
    wait_verdict,
)


def test_ctrl_enter_runs_and_a_double_click_submits_once(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "keys@example.org")
    page.goto(EXERCISE)
    replace_code(page, GOOD)
    page.keyboard.press("Control+Enter")
    wait_verdict(page, "Accepted")
    expect(page.locator("#result .score")).to_contain_text("8 of 8 visible tests passed")
    assert editor_text(page) == GOOD, "Ctrl+Enter ran the code instead of adding a line"
    shots.take(page, "ctrl-enter-run")
    assert [r["mode"] for r in own_submissions(page)] == ["run"]

    page.get_by_role("button", name="Submit", exact=True).dblclick()
    wait_verdict(page, "Accepted")
    expect(page.locator("#result .score")).to_contain_text("15 of 15 tests passed")
    assert [r["mode"] for r in own_submissions(page)] == ["submit", "run"], "one attempt"


def test_without_javascript_the_form_posts_and_shows_the_verdict(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory(java_script_enabled=False).new_page()
    sign_up(page, "nojs@example.org")
    page.goto(EXERCISE)
    textarea = page.get_by_label("Code (NumPy)")
    expect(textarea).to_be_visible()
    expect(page.locator(".cm-editor")).to_have_count(0)
    textarea.fill(GOOD)
    shots.take(page, "form")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page).to_have_url(re.compile(rf"{EXERCISE}/results/\d+$"))
    assert page.url.endswith(f"/results/{own_submissions(page)[0]['id']}")
    expect(page.locator("#verdict-h")).to_have_text("Accepted", timeout=GRADE_TIMEOUT_MS)
    expect(page.locator(".test-table tbody tr")).to_have_count(15)
    shots.take(page, "result-page")
    page.get_by_role("link", name="Back to the editor").click()
    expect(page.get_by_label("Code (NumPy)")).to_have_value(GOOD)


def test_an_ended_session_keeps_the_code(
    context_factory: Any, server: Server, shots: Shots
) -> None:
    email = "expired@example.org"
    page = context_factory().new_page()
    sign_up(page, email)
    page.goto(EXERCISE)
    mine = GOOD + "# written while my session ran out\n"
    replace_code(page, mine)
    server.expire_sessions(email)
    page.get_by_role("button", name="Submit", exact=True).click()
    alert = page.locator("#result .session-ended")
    expect(alert).to_contain_text("Your session has ended.")
    expect(alert).to_contain_text("(your code is saved")
    link = alert.get_by_role("link", name="Log in again")
    expect(link).to_have_attribute(
        "href", "/login?next=/exercises/position-embedding-gather%3Fframework%3Dnumpy"
    )
    assert editor_text(page) == mine, "the editor is untouched"
    kept = page.evaluate(
        "JSON.parse(localStorage.getItem("
        "Object.keys(localStorage).find(k => k.includes('position-embedding-gather'))))"
    )
    assert kept["code"] == mine and kept["synced"] is False
    expect(page.get_by_role("button", name="Submit", exact=True)).to_be_enabled()
    shots.take(page, "session-ended")

    link.click()
    log_in(page, email, "/exercises/position-embedding-gather?framework=numpy")
    expect(page.locator(".cm-editor")).to_be_visible()
    assert editor_text(page) == mine, "the code kept in the browser comes back after logging in"
    expect(page.locator("#save-status")).to_contain_text(
        "Draft saved to your account", timeout=10_000
    )
    shots.take(page, "logged-in-code-back")


def test_syntax_error_line_is_marked_even_without_server_sent_events(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "syntax@example.org")
    page.route("**/events", lambda route: route.abort())  # the stream fails: polling takes over
    page.goto(EXERCISE)
    broken = (
        "import numpy as np\n\n\n"
        "def position_embedding_gather(positions, table:\n"
        "    return table\n"
    )
    replace_code(page, broken)
    page.get_by_role("button", name="Run", exact=True).click()
    wait_verdict(page, "Syntax error on line 4")
    marked = page.locator(".cm-error-line")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text("def position_embedding_gather(positions, table:")
    shots.take(page, "syntax-error")


def test_two_megabyte_paste_is_refused_and_kept(context_factory: Any, shots: Shots) -> None:
    page = context_factory().new_page()
    sign_up(page, "huge@example.org")
    page.goto(EXERCISE)
    huge = GOOD + "# filler\n" * (2 * 1024 * 1024 // 9)
    replace_code(page, huge)
    page.get_by_role("button", name="Submit", exact=True).click()
    alert = page.locator("#result [role=alert]")
    expect(alert).to_contain_text("the limit is 64 KB")
    expect(alert).to_contain_text("Your text is still in the editor")
    assert editor_text(page) == huge
    expect(page.locator("#save-status")).to_contain_text("Not saved to your account")
    assert own_submissions(page) == []
    shots.take(page, "too-large")


def test_a_visitors_code_follows_them_into_their_account(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "visitor@example.org")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    page.goto(EXERCISE)
    mine = GOOD + "# typed before logging in\n"
    replace_code(page, mine)
    page.get_by_role("button", name="Run", exact=True).click()
    alert = page.locator("#result .session-ended")
    expect(alert).to_contain_text("You need to log in to run your code")
    shots.take(page, "visitor-run")
    alert.get_by_role("link", name="log in").click()
    log_in(page, "visitor@example.org", "/exercises/position-embedding-gather?framework=numpy")
    expect(page.locator(".cm-editor")).to_be_visible()
    assert editor_text(page) == mine
    expect(page.locator("#save-status")).to_contain_text("Draft saved to your account")
    page.reload()
    assert editor_text(page) == mine, "the server now holds it"


def test_a_second_courses_editor_keeps_its_own_browser_copy(
    context_factory: Any, shots: Shots
) -> None:
    """Two courses may share an exercise slug: the copy kept in this browser names its course
    (the first course's keys are as before, so copies kept before stay found)."""
    page = context_factory().new_page()
    sign_up(page, "twocourses@example.org")
    second = "/courses/attention-step-by-step/exercises/split-heads"
    page.goto(second)
    replace_code(page, "# the second course's split-heads\n")
    expect(page.locator("#save-status")).to_contain_text("Draft saved to your account")
    page.goto(EXERCISE)
    replace_code(page, GOOD + "# the first course's gather\n")
    expect(page.locator("#save-status")).to_contain_text("Draft saved to your account")
    keys = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('posembed:draft:'))")
    assert sorted(k.split(":", 3)[3] for k in keys) == [
        "/courses/attention-step-by-step:split-heads:numpy",
        "position-embedding-gather:numpy",
    ]
    shots.take(page, "two-courses-drafts")
