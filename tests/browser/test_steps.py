"""Hints in steps and report-a-problem in a real browser, then the instructor resolves it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.browser.a11y import assert_accessible
from tests.browser.conftest import Server, Shots, sign_up
from tests.browser.helpers import EXERCISE
from tests.browser.test_accessibility import make_instructor


def test_hints_one_by_one_and_a_reported_problem_resolved(
    context_factory: Any, server: Server, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "steps@example.org", name="Stu Dent")
    page.goto(EXERCISE)
    hints = page.locator("#hints")
    expect(hints.locator("h2")).to_have_text("Hints (0 of 4 open)")
    expect(hints.locator("li.hint")).to_have_count(0)
    hints.get_by_role("button", name="Show hint 1 of 4").click()
    expect(hints.locator("li.hint")).to_have_count(1)
    expect(hints.locator("li.hint").first).to_contain_text("Indexing the first axis")
    hints.get_by_role("button", name="Show hint 2 of 4").click()
    expect(hints.locator("li.hint")).to_have_count(2)
    expect(hints.get_by_role("button", name="Show hint 3 of 4")).to_be_visible()
    shots.take(page, "two-hints-open")
    assert_accessible(page, "exercise-with-hints")

    report = page.locator("details.report-problem")
    report.locator("summary").click()
    report.get_by_label("What is wrong?", exact=False).fill(
        "Hint 2 names int64 but my ids are int32."
    )
    report.get_by_role("button", name="Send the report").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(
        "your report reached the instructors"
    )
    shots.take(page, "report-sent")

    make_instructor(server, "steps@example.org")
    page.goto("/instructor/problems")
    row = page.locator("table.problems tbody tr").first
    expect(row).to_contain_text("Hint 2 names int64")
    expect(row).to_contain_text("Stu Dent")
    assert_accessible(page, "instructor-problems")
    shots.take(page, "instructor-reports")
    row.get_by_role("button", name="Mark resolved").click()
    expect(page.locator("main, body").first).to_contain_text("No open reports")
    page.goto("/instructor/problems?show=resolved")
    expect(page.locator("table.problems tbody tr")).to_have_count(1)
    page.goto(f"/instructor/exercises/{EXERCISE.rsplit('/', 1)[-1]}")
    expect(page.locator("table", has_text="Students who opened each hint")).to_contain_text(
        "Hint 2"
    )
