"""WCAG 2.2 AA in a real browser: axe-core on each kind of page, the solve flow by keyboard alone,
text equivalents for heatmaps and charts, and verdicts that do not rely on colour."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.browser.a11y import assert_accessible
from tests.browser.conftest import Server, Shots, sign_up
from tests.browser.helpers import (
    EXERCISE,
    GOOD,
    GRADE_TIMEOUT_MS,
    SLUG,
    WRONG,
    replace_code,
    wait_verdict,
)
from tests.browser.test_exercise_flow import answer_quiz

INSTRUCTOR_PAGES = [
    "/instructor",
    "/instructor/content",
    "/instructor/gradebook",
    "/instructor/students",
    "/instructor/exercises",
    f"/instructor/exercises/{SLUG}",
    "/instructor/problems",
]


def scan(page: Any, shots: Shots, name: str) -> None:
    """Screenshot the page for the artifacts, then run axe on it."""
    shots.take(page, name)
    assert_accessible(page, name)


def make_instructor(server: Server, email: str) -> None:
    """Make an account made through the sign-up form an instructor of the first offering."""
    server.cli("offerings", "enroll", "1", email, "--role", "instructor")


def test_student_pages_have_no_serious_violation(context_factory: Any, shots: Shots) -> None:
    page = context_factory().new_page()
    page.goto("/")
    scan(page, shots, "home-visitor")
    sign_up(page, "axe-student@example.org")
    page.goto("/")
    scan(page, shots, "home")
    answer_quiz(page)
    scan(page, shots, "lesson-with-quiz")
    page.goto(EXERCISE)
    expect(page.locator(".cm-editor")).to_be_visible()
    scan(page, shots, "exercise")
    replace_code(page, WRONG)
    page.get_by_role("button", name="Submit", exact=True).click()
    wait_verdict(page, "Wrong answer")
    scan(page, shots, "exercise-failing-report")
    page.goto(f"{EXERCISE}/history")
    scan(page, shots, "history")


def test_instructor_pages_have_no_serious_violation(
    context_factory: Any, server: Server, shots: Shots
) -> None:
    page = context_factory().new_page()
    email = "axe-teacher@example.org"
    sign_up(page, email, name="Grace Hopper")
    make_instructor(server, email)
    for path in INSTRUCTOR_PAGES:
        response = page.goto(path)
        assert response is not None and response.status == 200, path
        scan(page, shots, path.strip("/").replace("/", "-"))


def focused(page: Any) -> dict[str, Any]:
    """What has the keyboard focus, and whether it draws a visible outline."""
    info: dict[str, Any] = page.evaluate(
        """() => {
          let el = document.activeElement;
          while (el && el.shadowRoot && el.shadowRoot.activeElement) {
            el = el.shadowRoot.activeElement;
          }
          const editor = el.closest('.cm-editor');
          const style = getComputedStyle(editor || el);
          return {
            id: el.id, tag: el.tagName.toLowerCase(),
            text: (el.textContent || '').trim().slice(0, 40),
            cls: typeof el.className === 'string' ? el.className : '',
            outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
            inEditor: !!editor,
          };
        }"""
    )
    return info


def tab_until(page: Any, wanted: Any, limit: int = 60) -> list[dict[str, Any]]:
    """Press Tab until `wanted(focused)` holds; return every stop on the way."""
    stops = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        now = focused(page)
        stops.append(now)
        if wanted(now):
            return stops
    raise AssertionError(f"never reached the wanted element; focus went: {stops}")


def paste_by_keyboard(page: Any, code: str) -> None:
    """Replace the editor's text with Ctrl+A, Ctrl+V (the clipboard is filled by the test)."""
    page.evaluate("text => navigator.clipboard.writeText(text)", code)
    page.keyboard.press("Control+A")
    page.keyboard.press("Control+V")
    expect(page.locator("#code")).to_have_value(code)


def test_whole_solve_flow_by_keyboard_alone(context_factory: Any, shots: Shots) -> None:
    page = context_factory().new_page()
    sign_up(page, "keyboard-only@example.org")
    page.goto(EXERCISE)
    expect(page.locator(".cm-editor")).to_be_visible()
    # The skip link comes first and lands on the content.
    page.keyboard.press("Tab")
    first = focused(page)
    assert "skip-link" in first["cls"] and first["outline"], first
    page.keyboard.press("Enter")
    # Through the statement and the divider to the editor; every stop shows where focus is.
    stops = tab_until(page, lambda f: f["inEditor"])
    assert all(stop["outline"] or stop["inEditor"] for stop in stops), stops
    ids = [stop["id"] for stop in stops]
    assert "pane-statement" in ids and "split-divider" in ids, ids
    assert ids.index("pane-statement") < ids.index("split-divider")
    expect(page.locator(".cm-editor")).to_have_class(re.compile("cm-focused"))
    paste_by_keyboard(page, WRONG)
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# typed with the keyboard only\n")
    expect(page.locator("#code")).to_have_value(re.compile("typed with the keyboard only"))
    shots.take(page, "typed")
    # Ctrl+Enter runs the visible tests and leaves the focus in the editor.
    page.keyboard.press("Control+Enter")
    wait_verdict(page, "Wrong answer")
    assert focused(page)["inEditor"]
    # Esc, then Tab, leaves the editor for the Run and Submit buttons.
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    now = focused(page)
    assert now["text"] == "Run" and now["outline"], now
    page.keyboard.press("Tab")
    now = focused(page)
    assert now["text"] == "Submit" and now["outline"], now
    page.keyboard.press("Enter")
    expect(page.locator("#verdict-h")).to_be_focused(timeout=GRADE_TIMEOUT_MS)
    wait_verdict(page, "Wrong answer")
    # From the verdict, Tab reaches the first failing test (open) and the folded rest.
    page.keyboard.press("Tab")
    now = focused(page)
    assert now["tag"] == "summary" and now["outline"], now
    assert "failed" in now["text"], now
    stops = tab_until(page, lambda f: f["tag"] == "summary" and f["text"].startswith("All "))
    page.keyboard.press("Enter")
    expect(page.locator("#result details.report-more")).to_have_attribute("open", "")
    shots.take(page, "report-by-keyboard")
    # Back to the editor with Shift+Tab, fix the code, submit: accepted.
    for _ in range(80):
        page.keyboard.press("Shift+Tab")
        if focused(page)["inEditor"]:
            break
    assert focused(page)["inEditor"]
    paste_by_keyboard(page, GOOD)
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert focused(page)["text"] == "Submit"
    page.keyboard.press("Enter")
    wait_verdict(page, "Accepted")
    shots.take(page, "accepted-by-keyboard")
