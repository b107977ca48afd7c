"""A timed exam in Chromium: starting, reloading and losing the connection without losing an
answer, the clock running out and handing the exam in, and a student with extra time."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from playwright.sync_api import expect

from app.config import ROOT
from tests.browser.conftest import PASSWORD, Server, Shots, _watch, launch, sign_up

LIMIT_MINUTES = 0.25  # 15 s: the clock runs out within the test
SHAPE = '[data-item="q:learned-absolute/table-shape"]'
PARAMS = '[data-item="q:learned-absolute/bert-base-params"]'
MODELS = '[data-item="q:learned-absolute/which-models-learned"]'
HAND_IN_TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def exam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The course with one short exam (15 s, three tries, scores shown at hand-in)."""
    content = tmp_path_factory.mktemp("exam-content")
    (content / "lessons").symlink_to(ROOT / "lessons")
    (content / "exercises").symlink_to(ROOT / "exercises")
    (content / "assessments").mkdir()
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    spec = {
        "slug": "short",
        "title": "Short exam",
        "kind": "exam",
        "opens": (now - dt.timedelta(hours=1)).isoformat(),
        "closes": (now + dt.timedelta(hours=3)).isoformat(),
        "time_limit_minutes": LIMIT_MINUTES,
        "attempts": 3,
        "release": "on_submit",
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
    (content / "assessments" / "short.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
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
        yield running


@pytest.fixture(scope="module")
def exam_browser(browser: Any) -> Any:
    """The package's Chromium: Playwright's sync API allows one instance per thread, and the
    other browser tests of this worker may have started it already."""
    return browser


@pytest.fixture
def new_page(exam_browser: Any, exam_server: Server) -> Iterator[Any]:
    """A page in a fresh context (own cookies); the test fails on an error in the page."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make() -> Any:
        context = exam_browser.new_context(base_url=exam_server.url)
        context.set_default_timeout(20_000)
        context.on("page", lambda page: _watch(page, errors))
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


def _user_id(server: Server, email: str) -> int:
    with sqlite3.connect(server.data_dir / "app.db") as db:
        row = db.execute("SELECT id FROM users WHERE email = ?", (email,)).fetchone()
    return int(row[0])


def _give_extra_time(server: Server, email: str, minutes: float) -> None:
    """What an instructor does on the assessment's page, through the API (for a student of the
    offering: on the roster, as one who has not worked in it yet is not a member, issue 46)."""
    server.cli("offerings", "enroll", "1", email, "--role", "student")
    token = server.cli("users", "token", "--email", "teacher@example.org")
    url = f"{server.url}/api/instructor/assessments/short/accommodations/{_user_id(server, email)}"
    body = json.dumps({"extra_minutes": minutes, "reason": "extra time"}).encode()
    request = urllib.request.Request(url, data=body, method="PUT")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def _start(page: Any) -> None:
    page.goto("/assessments/short")
    page.locator("#start").click()
    expect(page.locator("form[data-exam-ready]")).to_be_attached()


def _saved(page: Any) -> None:
    expect(page.locator("#exam-save-status")).to_contain_text("All answers saved on the server")


def test_reload_and_a_lost_connection_lose_no_answer(
    new_page: Any, exam_server: Server, shots: Shots
) -> None:
    page = new_page()
    sign_up(page, "ann@example.org")
    _give_extra_time(exam_server, "ann@example.org", 30)  # time enough for this test's steps
    _start(page)
    expect(page.locator("#exam-clock")).to_have_text(re.compile(r"^(30|29):\d\d$"))
    page.locator(f"{SHAPE} input[type=text]").fill("(max_len, d_model)")
    page.locator(f"{MODELS} input[value=bert]").check()
    page.locator(f"{MODELS} input[value=gpt-2]").check()
    _saved(page)
    shots.take(page, "answered")
    page.reload()
    expect(page.locator(f"{SHAPE} input[type=text]")).to_have_value("(max_len, d_model)")
    expect(page.locator(f"{MODELS} input[value=bert]")).to_be_checked()
    expect(page.locator(f"{MODELS} input[value=gpt-2]")).to_be_checked()
    expect(page.locator(f"{MODELS} input[value=gpt-3]")).not_to_be_checked()
    # The connection drops while typing: the answer waits in the browser, then reaches the server.
    page.context.set_offline(True)
    page.locator(f"{PARAMS} input[type=text]").fill("393216")
    expect(page.locator("#exam-save-status")).to_contain_text("Connection lost")
    shots.take(page, "offline")
    page.context.set_offline(False)
    _saved(page)
    page.reload()
    expect(page.locator(f"{PARAMS} input[type=text]")).to_have_value("393216")
    state = _state(page)
    assert state["answers"]["q:learned-absolute/bert-base-params"] == "393216"
    assert state["status"] == "open"


def _state(page: Any) -> dict[str, Any]:
    attempt = page.locator("form[data-exam]").get_attribute("data-exam") or page.url.rsplit("/")[-1]
    response = page.request.get(f"/api/assessments/attempts/{attempt}")
    assert response.status == 200, response.text()
    result: dict[str, Any] = response.json()
    return result


def test_the_clock_runs_out_and_the_exam_hands_itself_in(new_page: Any, shots: Shots) -> None:
    page = new_page()
    sign_up(page, "bob@example.org")
    _start(page)
    attempt = page.locator("form[data-exam]").get_attribute("data-exam")
    page.locator(f"{SHAPE} input[type=text]").fill("(max_len, d_model)")
    _saved(page)
    shots.take(page, "running")
    expect(page.locator("#exam-result")).to_contain_text(
        "Time ran out: your attempt was handed in by itself", timeout=HAND_IN_TIMEOUT_MS
    )
    expect(page.locator("#exam-score")).to_have_text("Your score: 33.3%.")
    shots.take(page, "handed-in")
    state = page.request.get(f"/api/assessments/attempts/{attempt}").json()
    assert state["status"] == "submitted" and state["submitted_by"] == "clock"
    assert state["answers"] == {"q:learned-absolute/table-shape": "(max_len, d_model)"}
    # After the end the server refuses answers, and nothing changes.
    late = page.request.put(
        f"/api/assessments/attempts/{attempt}/answers",
        data=json.dumps({"item": "q:learned-absolute/bert-base-params", "value": "393216"}),
        headers={"content-type": "application/json", "x-csrf-token": _csrf(page)},
    )
    assert late.status == 409, late.text()
    again = page.request.get(f"/api/assessments/attempts/{attempt}").json()
    assert again["answers"] == state["answers"]


def _csrf(page: Any) -> str:
    return str(page.locator('meta[name="csrf-token"]').get_attribute("content"))


def test_a_student_with_extra_time_keeps_working_after_the_others_stop(
    new_page: Any, exam_server: Server, shots: Shots
) -> None:
    page = new_page()
    sign_up(page, "cy@example.org")
    _give_extra_time(exam_server, "cy@example.org", 0.5)
    page.goto("/assessments/short")
    expect(page.locator("#time-limit")).to_contain_text(
        "0.75 minutes from when you start (including 0.5 extra minutes for you)"
    )
    _start(page)
    started = dt.datetime.fromisoformat(_state(page)["started_at"])
    deadline = dt.datetime.fromisoformat(_state(page)["deadline"])
    assert (deadline - started).total_seconds() == pytest.approx(45, abs=1)
    shots.take(page, "started")
    # Past the 15 s everyone else has, the exam is still open and answers still save.
    page.wait_for_timeout((LIMIT_MINUTES * 60 + 3) * 1000)
    expect(page.locator("form[data-exam]")).to_be_attached()
    page.locator(f"{PARAMS} input[type=text]").fill("393216")
    _saved(page)
    expect(page.locator("#exam-result")).to_contain_text("Time ran out", timeout=HAND_IN_TIMEOUT_MS)
    expect(page.locator("#exam-score")).to_have_text("Your score: 33.3%.")
    shots.take(page, "handed-in")
