"""The exercise page's layout: side by side with a movable divider on wide screens, stacked on
phones, and a report that opens on the first failing test."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import Shots, sign_up
from tests.browser.helpers import EXERCISE, GRADE_TIMEOUT_MS, WRONG, replace_code, wait_verdict

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def box(page: Any, selector: str) -> dict[str, float]:
    """The element's position and size on screen."""
    found: dict[str, float] = page.locator(selector).bounding_box()
    assert found, f"{selector} is not displayed"
    return found


def divider_value(page: Any) -> int:
    return int(page.locator("#split-divider").get_attribute("aria-valuenow"))


def test_wide_screen_puts_statement_and_editor_side_by_side(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory(viewport=WIDE).new_page()
    sign_up(page, "wide@example.org")
    page.goto(EXERCISE)
    expect(page.locator(".cm-editor")).to_be_visible()
    statement, work = box(page, "#pane-statement"), box(page, "#pane-work")
    assert statement["x"] + statement["width"] <= work["x"], (statement, work)
    assert abs(statement["y"] - work["y"]) < 2
    # Each pane scrolls on its own and fits the window, so the page itself does not scroll.
    for pane in ("#pane-statement", "#pane-work"):
        overflow = page.locator(pane).evaluate("el => getComputedStyle(el).overflowY")
        assert overflow == "auto", (pane, overflow)
        assert box(page, pane)["y"] + box(page, pane)["height"] <= WIDE["height"] + 1
    divider = page.get_by_role("separator")
    expect(divider).to_have_attribute("aria-orientation", "vertical")
    expect(divider).to_have_attribute("tabindex", "0")
    assert divider.get_attribute("aria-valuemin") == "25"
    assert divider.get_attribute("aria-valuemax") == "75"
    shots.take(page, "exercise-wide")

    # Arrow keys, Home and End move it, and the statement follows.
    start = divider_value(page)
    width = box(page, "#pane-statement")["width"]
    divider.focus()
    page.keyboard.press("ArrowRight")
    assert divider_value(page) == start + 5
    assert box(page, "#pane-statement")["width"] > width
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert divider_value(page) == start - 5
    page.keyboard.press("Home")
    assert divider_value(page) == 25
    page.keyboard.press("End")
    assert divider_value(page) == 75

    # Dragging with the pointer moves it too, and the width is remembered on reload.
    handle = box(page, "#split-divider")
    y = handle["y"] + handle["height"] / 2
    page.mouse.move(handle["x"] + handle["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(WIDE["width"] * 0.4, y, steps=5)
    page.mouse.up()
    dragged = divider_value(page)
    assert 35 <= dragged <= 45, dragged
    page.reload()
    expect(page.get_by_role("separator")).to_have_attribute("aria-valuenow", str(dragged))
    shots.take(page, "exercise-wide-dragged")


def test_phone_stacks_the_statement_above_the_editor(context_factory: Any, shots: Shots) -> None:
    page = context_factory(viewport=PHONE).new_page()
    page.goto(EXERCISE)
    expect(page.locator(".cm-editor")).to_be_visible()
    statement, work = box(page, "#pane-statement"), box(page, "#pane-work")
    assert statement["y"] + statement["height"] <= work["y"] + 1, (statement, work)
    expect(page.locator("#split-divider")).to_be_hidden()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways: {width}px"
    shots.take(page, "exercise-phone")


def test_report_opens_on_the_first_failure_and_folds_the_rest(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory(viewport=WIDE).new_page()
    sign_up(page, "report@example.org")
    page.goto(EXERCISE)
    replace_code(page, WRONG)
    page.get_by_role("button", name="Run", exact=True).click()
    wait_verdict(page, "Wrong answer")
    result = page.locator("#result")
    feedback = result.locator(".test-feedback")
    expect(feedback.first).to_have_attribute("open", "")
    expect(result.locator(".test-feedback[open]")).to_have_count(1)
    expect(feedback.first.locator(":scope > summary")).to_contain_text("failed")
    expect(feedback.first).to_be_in_viewport()
    # Every test is listed, folded, with its verdict in words and a mark, not only a colour.
    more = result.locator("details.report-more")
    expect(more).not_to_have_attribute("open", "")
    expect(more.locator(":scope > summary")).to_contain_text("passed")
    rows = more.locator(".test-table tbody tr")
    assert rows.count() > 1
    for row in rows.all():
        cell = str(row.locator("td").nth(1).text_content())
        assert ("✓" in cell and "passed" in cell) or ("✗" in cell and "failed" in cell), cell
    # The failure comes before the folded list in reading order.
    order = result.evaluate(
        "el => [...el.querySelectorAll('.test-feedback, .report-more')].map(e => e.className)"
    )
    assert order[0].startswith("test-feedback"), order
    # Heatmaps have their numbers as a table.
    numbers = feedback.first.locator("details.heatmap-numbers")
    expect(numbers).to_have_count(3)
    numbers.first.locator("summary").click()
    expect(numbers.first.locator("table tbody tr").first).to_be_visible()
    shots.take(page, "report-first-failure")


def test_without_javascript_the_result_page_opens_on_the_first_failure(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory(java_script_enabled=False, viewport=WIDE).new_page()
    sign_up(page, "nojs-layout@example.org")
    page.goto(EXERCISE)
    # Without JavaScript the two panes still sit side by side (plain grid, no divider).
    statement, work = box(page, "#pane-statement"), box(page, "#pane-work")
    assert statement["x"] + statement["width"] <= work["x"], (statement, work)
    expect(page.locator("#split-divider")).to_have_count(0)
    page.get_by_label("Code (NumPy)").fill(WRONG)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#verdict-h")).to_have_text("Wrong answer", timeout=GRADE_TIMEOUT_MS)
    first = page.locator("details.test-feedback")
    expect(first).to_have_attribute("open", "")
    expect(first.locator(":scope > summary")).to_contain_text("failed")
    more = page.locator("details.report-more")
    expect(more).not_to_have_attribute("open", "")
    expect(more.locator(":scope > summary")).to_contain_text("passed")
    shots.take(page, "result-page-no-js")
