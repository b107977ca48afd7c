"""A homework in Chromium: answers survive a reload, the hand-in keeps them, and the score
appears only once it is released (then the instructor reads the item statistics)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from playwright.sync_api import expect

from app.config import ROOT
from tests.browser.a11y import assert_accessible
from tests.browser.conftest import PASSWORD, Server, Shots, _watch, launch, log_in, sign_up

RELEASE_AFTER = dt.timedelta(seconds=90)  # the server starts, then she answers and hands in first
SHAPE = '[data-item="q:learned-absolute/table-shape"]'
PARAMS = '[data-item="q:learned-absolute/bert-base-params"]'
MODELS = '[data-item="q:learned-absolute/which-models-learned"]'


@dataclass(frozen=True)
class Homework:
    """The running app and when the homework's scores are released."""

    server: Server
    release: dt.datetime


@pytest.fixture(scope="module")
def homework(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Homework]:
    """The course with one homework in this test's own folder: no time limit, open for three
    hours, scores released 90 s after this fixture starts the server."""
    content = tmp_path_factory.mktemp("homework-content")
    (content / "lessons").symlink_to(ROOT / "lessons")
    (content / "exercises").symlink_to(ROOT / "exercises")
    (content / "assessments").mkdir()
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    release = now + RELEASE_AFTER
    spec = {
        "slug": "homework-1",
        "title": "Homework 1: position tables",
        "kind": "homework",
        "opens": (now - dt.timedelta(hours=1)).isoformat(),
        "closes": (now + dt.timedelta(hours=3)).isoformat(),
        "attempts": 2,
        "release": release.isoformat(),
        "parts": [
            {
                "title": "Tables",
                "items": [
                    {"question": "learned-absolute/table-shape"},
                    {"question": "learned-absolute/bert-base-params"},
                    {"question": "learned-absolute/which-models-learned"},
                ],
            }
        ],
    }
    path = content / "assessments" / "homework-1.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    pools = json.dumps({"numpy": 0, "torch": 0, "jax": 0})  # questions only: no grader needed
    with launch(content / "var", content_dir=content, warm=False, POOL_SIZES=pools) as running:
        running.cli(
            "users",
            "create",
            "--email",
            "teacher@example.org",
            "--password",
            PASSWORD,
            "--role",
            "instructor",
        )
        yield Homework(running, release)


@pytest.fixture
def new_page(browser: Any, homework: Homework) -> Iterator[Any]:
    """A page in a fresh context (own cookies); the test fails on an error in the page."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make() -> Any:
        context = browser.new_context(base_url=homework.server.url)
        context.set_default_timeout(20_000)
        context.on("page", lambda page: _watch(page, errors))
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


def _saved(page: Any) -> None:
    expect(page.locator("#exam-save-status")).to_contain_text("All answers saved on the server")


def test_a_student_answers_reloads_hands_in_and_sees_the_released_score(
    new_page: Any, homework: Homework, shots: Shots
) -> None:
    page = new_page()
    sign_up(page, "hana@example.org")
    page.goto("/assessments/homework-1")
    expect(page.locator("#time-limit")).to_contain_text("none: until the close")
    page.get_by_role("button", name="Start the homework").click()
    expect(page.locator("form[data-exam-ready]")).to_be_attached()
    page.locator(f"{SHAPE} input[type=text]").fill("(max_len, d_model)")
    page.locator(f"{PARAMS} input[type=text]").fill("786432")
    for model in ("bert", "gpt-2", "gpt-3", "roberta"):
        page.locator(f"{MODELS} input[value={model}]").check()
    _saved(page)
    shots.take(page, "answered")

    page.reload()
    expect(page.locator(f"{SHAPE} input[type=text]")).to_have_value("(max_len, d_model)")
    expect(page.locator(f"{PARAMS} input[type=text]")).to_have_value("786432")
    for model in ("bert", "gpt-2", "gpt-3", "roberta"):
        expect(page.locator(f"{MODELS} input[value={model}]")).to_be_checked()

    page.locator("#hand-in").click()
    expect(page.locator("#exam-result")).to_contain_text("You handed in this attempt")
    expect(page.locator("#exam-score")).to_contain_text("Scores are released at")
    expect(page.locator(f"li{SHAPE} code")).to_have_text("(max_len, d_model)")
    expect(page.locator(f"li{PARAMS} code")).to_have_text("786432")
    shots.take(page, "handed-in")
    result_url = page.url
    page.goto("/assessments/homework-1")
    expect(page.get_by_text("handed in; scores are released at")).to_be_visible()

    # Once the release time has passed, the same pages show the score: 2 of 3 right.
    wait = (homework.release - dt.datetime.now(dt.UTC)).total_seconds() + 1
    page.wait_for_timeout(max(0.0, wait) * 1000)
    page.goto(result_url)
    expect(page.locator("#exam-score")).to_have_text("Your score: 66.7%.")
    shots.take(page, "released")
    page.goto("/assessments/homework-1")
    expect(page.get_by_role("link", name="Attempt 1")).to_be_visible()
    expect(page.locator("li").filter(has_text="Attempt 1")).to_contain_text("67%")

    # The instructor's page counts her attempt in the item statistics.
    teacher = new_page()
    log_in(teacher, "teacher@example.org", "/instructor/assessments/homework-1")
    table = teacher.locator("#item-stats")
    expect(table.locator(f"tr{SHAPE} td.num").nth(1)).to_have_text("1")
    expect(table.locator(f"tr{SHAPE} td.num").nth(2)).to_have_text("100%")
    expect(table.locator(f"tr{PARAMS} td.num").nth(2)).to_have_text("0%")
    expect(table.locator(f"tr{PARAMS}")).to_contain_text("786432")
    assert_accessible(teacher, "instructor-assessment")
    shots.take(teacher, "item-statistics")
