"""The editor in Chromium: an author starts an exercise from "New exercise", sees a problem on
save beside its line, fixes it, writes the files in CodeMirror (each save's grading check is
followed in place), previews the draft and runs code against its tests (a job the run's page
follows without reloading), publishes, and a student then solves it. Before publishing, the
student's address of the exercise is a 404."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.authoring.course import make_course
from tests.browser.conftest import (
    PASSWORD,
    Server,
    _require_browser,
    _watch,
    launch,
    log_in,
    sign_up,
)
from tests.browser.helpers import GRADE_TIMEOUT_MS, authoring_bundle, write_in_editor

SLUG = "add-positions"
BROKEN_YAML = f"""slug: {SLUG}
title: [Add the positions
"""
REFERENCE = '''import numpy as np


def add_positions(x):
    """x (N, T, d) -> x + t at position t."""
    x = np.asarray(x, dtype=np.float64)
    return x + np.arange(x.shape[1])[None, :, None]
'''
CASES = """import numpy as np


def cases():
    rng = np.random.default_rng(0)
    small = rng.standard_normal((2, 4, 3)).astype(np.float32)
    one = rng.standard_normal((3, 1, 2)).astype(np.float32)
    return [
        {"name": "small", "hidden": False, "inputs": {"x": small}},
        {"name": "one token", "hidden": True, "inputs": {"x": one}},
    ]
"""
SOLUTION = """import numpy as np


def add_positions(x):
    return x + np.arange(x.shape[1], dtype=x.dtype)[None, :, None]
"""
WRONG = """import numpy as np


def add_positions(x):
    return x + np.arange(1, x.shape[1] + 1, dtype=x.dtype)[None, :, None]
"""


@pytest.fixture(scope="module")
def editor_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The tiny course with a NumPy grader; one editor."""
    _require_browser()
    folder = make_course(tmp_path_factory.mktemp("authoring-editor") / "course")
    pools = json.dumps({"numpy": 1, "torch": 0, "jax": 0})
    with launch(folder.parent / "var", content_dir=folder, warm=False, POOL_SIZES=pools) as running:
        running.cli("users", "create", "--email", "author@example.org", "--password", PASSWORD,
                    "--role", "instructor")  # fmt: skip
        running.cli("courses", "editor", "add", "tiny-course", "author@example.org")
        yield running


def _page(browser: Any, url: str, errors: list[str]) -> Any:
    context = browser.new_context(base_url=url)
    context.set_default_timeout(30_000)
    authoring_bundle()  # built by `make assets`
    context.on("page", lambda page: _watch(page, errors))
    return context.new_page()


def _save_file(page: Any, name: str, text: str) -> None:
    page.get_by_role("navigation", name=f"Files of exercise {SLUG}").get_by_role(
        "link", name=name, exact=True
    ).click()
    expect(page.locator("h1")).to_have_text(f"exercises/{SLUG}/{name}")
    write_in_editor(page, text)
    page.get_by_role("button", name="Save draft").click()
    expect(page.get_by_role("status")).to_contain_text("Draft saved")


def test_an_author_creates_checks_previews_runs_and_publishes_and_a_student_solves_it(
    browser: Any, editor_server: Server
) -> None:
    server = editor_server
    errors: list[str] = []
    author = _page(browser, server.url, errors)
    log_in(author, "author@example.org", "/authoring/tiny-course")
    new = author.locator("form[action$='/new-exercise']")
    new.get_by_label("Its name in URLs").fill(SLUG)
    new.get_by_role("button", name="Start from the template").click()
    expect(author.locator("h1")).to_have_text(f"exercises/{SLUG}/exercise.yaml")
    expect(author.locator(".code-editor")).to_be_visible()  # CodeMirror, not the bare textarea
    template = author.locator("#text").input_value()
    assert "TODO" in template and f"slug: {SLUG}" in template

    write_in_editor(author, template.replace(f"slug: {SLUG}\n", BROKEN_YAML, 1))
    author.get_by_role("button", name="Save draft").click()
    problem = author.locator("li.has-problem .line-problem").first
    expect(problem).to_contain_text("invalid YAML")
    write_in_editor(
        author, template.replace('title: "Add positions"', 'title: "Add the positions"')
    )
    author.get_by_role("button", name="Save draft").click()
    expect(author.get_by_role("status")).to_contain_text("Draft saved")
    expect(author.locator("li.has-problem")).to_have_count(0)

    _save_file(author, "reference.py", REFERENCE)
    _save_file(author, "cases.py", CASES)
    _save_file(author, "solutions/numpy.py", SOLUTION)
    author.evaluate("window.stayed = true")
    check = author.locator("#grading-check .check-state")
    expect(check).to_have_attribute("data-state", "done", timeout=GRADE_TIMEOUT_MS)
    assert author.evaluate("window.stayed === true")  # followed in place, not by a reload

    student = _page(browser, server.url, errors)
    sign_up(student, "sam@example.org")
    assert student.goto(f"/exercises/{SLUG}").status == 404  # a draft is nobody's but its authors'

    author.get_by_role("link", name="Preview as a student").click()
    expect(author.locator("h1")).to_have_text("Add the positions")
    write_in_editor(author, WRONG)
    author.get_by_role("button", name="Run", exact=True).click()
    expect(author).to_have_url(re.compile(rf"/preview/exercises/{SLUG}/runs/\d+$"))
    author.evaluate("window.stayed = true")
    expect(author.locator("#verdict-h")).to_have_text("Wrong answer", timeout=GRADE_TIMEOUT_MS)
    assert author.evaluate("window.stayed === true")
    write_in_editor(author, SOLUTION)
    author.get_by_role("button", name="Submit", exact=True).click()
    expect(author.locator("#verdict-h")).to_have_text("Accepted", timeout=GRADE_TIMEOUT_MS)

    author.goto("/authoring/tiny-course")
    expect(author.locator(f"tr[data-item='exercise:{SLUG}']")).to_contain_text("draft")
    author.get_by_label("What changed and why").fill("A first exercise on positions")
    author.get_by_role("button", name="Publish").click()
    expect(author.get_by_role("status")).to_contain_text("Published as version 1")
    expect(author.locator(f"tr[data-item='exercise:{SLUG}']")).to_contain_text("published")

    student.goto(f"/exercises/{SLUG}")
    expect(student.locator("h1")).to_have_text("Add the positions")
    editor = student.locator(".cm-content")
    editor.click()
    student.keyboard.press("Control+A")
    student.keyboard.press("Delete")
    student.keyboard.insert_text(SOLUTION)
    expect(student.locator("#code")).to_have_value(SOLUTION)
    student.get_by_role("button", name="Submit", exact=True).click()
    expect(student.locator("#verdict-h")).to_have_text("Accepted", timeout=GRADE_TIMEOUT_MS)
    assert errors == []
