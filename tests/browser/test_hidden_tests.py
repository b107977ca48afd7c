"""Hidden tests in the browser: closed by default, opened once the exercise allows it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from app.config import ROOT
from tests.browser.conftest import Server, Shots, launch, sign_up
from tests.browser.helpers import EXERCISE, SLUG, WRONG, replace_code, wait_verdict

# The report's first line for a hidden test's inputs (graders/judging/judge.py words it).
INPUT_WORDS = "Its input: "


@pytest.fixture(scope="module")
def after_due_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A second server over a copy of the course whose gather exercise is past its due date,
    with `hidden_tests: after_due`: its hidden tests are open to students there."""
    content = tmp_path_factory.mktemp("content")
    for folder in ("lessons", "exercises"):
        shutil.copytree(ROOT / folder, content / folder)
    meta = content / "exercises" / SLUG / "exercise.yaml"
    settings = "\nhidden_tests: after_due\ndue: 2001-01-01T00:00:00Z\n"
    meta.write_text(meta.read_text(encoding="utf-8").rstrip() + settings, encoding="utf-8")
    pools = json.dumps({"numpy": 1, "torch": 0, "jax": 0})  # this test submits NumPy only
    with launch(content / "var", content_dir=content, POOL_SIZES=pools) as running:
        yield running


def _submit_wrong(page: Any) -> Any:
    page.goto(EXERCISE)
    expect(page.locator(".cm-editor")).to_be_visible()
    replace_code(page, WRONG)
    page.get_by_role("button", name="Submit", exact=True).click()
    wait_verdict(page, "Wrong answer")
    return page.locator("#result")


def _hidden_rows(result: Any) -> Any:
    return result.locator(".test-table tbody tr").filter(has_text="hidden")


def test_hidden_tests_stay_closed_before_they_are_allowed(
    context_factory: Any, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "closed@example.org")
    result = _submit_wrong(page)
    rows = _hidden_rows(result)
    expect(rows.first).to_be_attached()
    assert rows.count() >= 1
    for text in rows.all_inner_texts():
        assert "now shown" not in text and "Inputs:" not in text, text
    sid = result.get_attribute("data-submission")
    view = page.request.get(f"/api/submissions/{sid}").json()
    hidden = [t["name"] for t in view["tests"] if t["hidden"] and not t["passed"]]
    assert hidden, "the wrong answer should fail some hidden tests"
    # Visible tests say what they fed the code; failing hidden ones must not.
    for block in result.locator(".test-feedback").all():
        summary = block.locator(":scope > summary").inner_text()
        if any(f"{name}: failed" in summary for name in hidden):
            assert INPUT_WORDS not in (block.text_content() or ""), summary
    shots.take(page, "closed-report")

    page.goto(f"/submissions/{sid}")
    expect(page.get_by_role("heading", name="Tests")).to_be_visible()
    hidden_items = page.locator("li.test-result").filter(has=page.locator(".badge"))
    assert hidden_items.count() >= len(hidden)
    for text in hidden_items.all_text_contents():
        assert INPUT_WORDS not in text and "now shown" not in text, text
    shots.take(page, "closed-history")


def test_after_the_due_date_hidden_tests_show_what_they_checked(
    browser: Any, after_due_server: Server, shots: Shots
) -> None:
    context = browser.new_context(
        base_url=after_due_server.url, permissions=["clipboard-read", "clipboard-write"]
    )
    context.set_default_timeout(20_000)
    try:
        page = context.new_page()
        sign_up(page, "opened@example.org")
        result = _submit_wrong(page)
        opened = result.locator(".test-table tbody tr").filter(has_text="hidden (now shown)")
        expect(opened.first).to_be_attached()
        sid = result.get_attribute("data-submission")
        view = page.request.get(f"/api/submissions/{sid}").json()
        hidden = [t["name"] for t in view["tests"] if t["hidden"] and not t["passed"]]
        assert hidden, "the wrong answer should fail some hidden tests"
        block = result.locator(".test-feedback").filter(has_text=f"{hidden[0]}: failed")
        expect(block).to_contain_text(INPUT_WORDS)
        shots.take(page, "opened-report")

        page.goto(f"/submissions/{sid}")
        item = page.locator("li.test-result").filter(has_text="hidden (now shown)")
        expect(item.filter(has_text=hidden[0]).first).to_contain_text(INPUT_WORDS)
        shots.take(page, "opened-history")
    finally:
        context.close()
