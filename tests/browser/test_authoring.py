"""Authoring in Chromium: an editor changes a lesson's quiz, sees the YAML problem beside its
line, fixes it, previews the draft, publishes, and a student then sees the new question."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from app.config import ROOT
from tests.authoring.course import LESSON, git, make_course
from tests.browser.conftest import (
    PASSWORD,
    Server,
    _require_browser,
    _watch,
    launch,
    log_in,
    sign_up,
)
from tests.browser.helpers import authoring_bundle, write_in_editor

NEW = LESSON.replace("Which number is even?", "Which number is odd?")
BROKEN = NEW.replace("    prompt: Which number is odd?", "    prompt: [Which number is odd?")


@pytest.fixture(scope="module")
def course_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """The tiny course (its own git repository) served with no grader; one editor."""
    _require_browser()
    folder = make_course(tmp_path_factory.mktemp("authoring") / "course")
    pools = json.dumps({"numpy": 0, "torch": 0, "jax": 0})  # text only: no grader needed
    data = folder.parent / "var"
    with launch(data, content_dir=folder, warm=False, POOL_SIZES=pools) as running:
        running.cli("users", "create", "--email", "editor@example.org", "--password", PASSWORD,
                    "--role", "instructor")  # fmt: skip
        running.cli("courses", "editor", "add", "tiny-course", "editor@example.org")
        yield running, folder


@pytest.fixture
def chromium(browser: Any, course_server: tuple[Server, Path]) -> Any:
    """The package's Chromium (one Playwright per process: a second would meet the first's
    event loop); this module opens contexts on its own server."""
    return browser


def _page(chromium: Any, url: str, errors: list[str]) -> Any:
    context = chromium.new_context(base_url=url)
    context.set_default_timeout(20_000)
    authoring_bundle()  # built by `make assets`
    context.on("page", lambda page: _watch(page, errors))
    return context.new_page()


def test_an_editor_fixes_previews_and_publishes_and_a_student_sees_it(
    chromium: Any, course_server: tuple[Server, Path]
) -> None:
    server, folder = course_server
    errors: list[str] = []
    editor = _page(chromium, server.url, errors)
    log_in(editor, "editor@example.org", "/authoring/tiny-course")
    expect(editor.locator("tr[data-item='lesson:first-steps']")).to_contain_text("published")
    editor.get_by_role("link", name="Edit lesson first-steps").click()
    write_in_editor(editor, BROKEN)
    editor.get_by_role("button", name="Save draft").click()
    problem = editor.locator("li.has-problem .line-problem").first
    expect(problem).to_contain_text("invalid YAML")
    number = int(editor.locator("li.has-problem").first.get_attribute("value") or 0)
    assert number in (9, 10), number  # the prompt's line, or the next one where YAML noticed
    assert (folder / "lessons" / "first-steps.md").read_text("utf-8") == LESSON  # a draft only

    write_in_editor(editor, NEW)
    editor.get_by_role("button", name="Save draft").click()
    expect(editor.get_by_role("status")).to_contain_text("Draft saved")
    expect(editor.locator("li.has-problem")).to_have_count(0)
    editor.get_by_role("link", name="Preview as a student").click()
    expect(editor.locator(".prose")).to_contain_text("Some text with")
    expect(editor.locator("#quiz")).to_contain_text("Which number is odd?")

    student = _page(chromium, server.url, errors)
    sign_up(student, "sam@example.org")
    student.goto("/lessons/first-steps")
    expect(student.locator("#quiz")).to_contain_text("Which number is even?")  # not the draft

    editor.goto("/authoring/tiny-course")
    editor.get_by_label("What changed and why").fill("Ask about odd numbers")
    editor.get_by_role("button", name="Publish").click()
    expect(editor.get_by_role("status")).to_contain_text("Published as version 1")
    expect(editor.locator("table").last).to_contain_text("Ask about odd numbers")

    student.goto("/lessons/first-steps")
    expect(student.locator("#quiz")).to_contain_text("Which number is odd?")
    assert git(folder, "log", "-1", "--format=%ae %s") == "editor@example.org Ask about odd numbers"
    assert errors == []
    assert ROOT not in folder.parents  # the course's repository, never the project's
