"""Preview's Run grades the author's code against the draft's own tests, through the real
grader and sandbox, as a `preview_run` job of the queue: the request only queues it, a consumer
of the queue grades it, and the page (or the API) follows the job until its report is there."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from app.config import get_settings
from app.db import session_factory
from app.grading.runtime import JobRuntime
from app.jobs.models import Job
from tests.authoring.conftest import Authoring
from tests.users.helpers import form_token, login

API = "/api/courses/tiny-course/authoring"
PREVIEW = "/authoring/tiny-course/preview/exercises/split-heads"
REFERENCE = "exercises/split-heads/reference.py"
VERDICT = re.compile(r'<h2 id="verdict-h" class="verdict [^"]*">([^<]*)</h2>')


def _queue(a: Authoring, code: str, mode: str = "run") -> str:
    """Post the preview's form; the address of the run's page it sends the author to."""
    page = a.client.get(f"{PREVIEW}?framework=numpy")
    response = a.client.post(
        f"{PREVIEW}/run",
        data={
            "code": code,
            "framework": "numpy",
            "mode": mode,
            "csrf_token": form_token(page.text),
        },
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    location = str(response.headers["location"])
    assert re.fullmatch(rf"{PREVIEW}/runs/\d+", location), location
    return location


def _finished_page(a: Authoring, url: str, timeout: float = 400) -> str:
    """The run's page once the job is done (without JavaScript it refreshes until then)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page = a.client.get(url)
        assert page.status_code == 200, page.text
        if 'id="verdict-h"' in page.text:
            return page.text
        assert '<meta http-equiv="refresh"' in page.text  # the no-JS page reloads itself
        time.sleep(0.2)
    raise AssertionError("the run did not finish")


def _run(a: Authoring, code: str, mode: str = "run") -> str:
    verdict = VERDICT.search(_finished_page(a, _queue(a, code, mode)))
    assert verdict is not None
    return verdict.group(1)


def test_run_grades_against_the_drafts_tests_not_the_served_ones(authoring: Authoring) -> None:
    a = authoring
    assert login(a.client, "editor@example.org", password="correct horse").status_code == 303
    solution = (a.folder / "exercises/split-heads/solutions/numpy.py").read_text("utf-8")
    assert _run(a, solution, mode="submit") == "Accepted"
    assert _run(a, "def split_heads(x, num_heads):\n    return x\n") != "Accepted"

    opened = a.client.get(f"{API}/files/{REFERENCE}", headers=a.editor).json()
    doubled = opened["text"].replace("    return out\n", "    return 2 * out\n")
    assert doubled != opened["text"]
    saved = a.client.put(
        f"{API}/files/{REFERENCE}",
        json={"text": doubled, "base": opened["revision"]},
        headers=a.editor,
    )
    assert saved.status_code == 200, saved.text
    assert _run(a, solution) != "Accepted"  # the draft's reference now disagrees with it
    twice = solution.replace("return ", "return 2 * ", 1)
    assert "2 * " in twice
    assert _run(a, twice) == "Accepted"
    assert (a.folder / REFERENCE).read_text("utf-8") == opened["text"]  # the disk is untouched


@pytest.fixture
def web_grades_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The web app runs no consumer of the queue (SERVE_GRADES=false)."""
    monkeypatch.setenv("SERVE_GRADES", "false")
    monkeypatch.setenv("POOL_WARM_ON_START", "false")
    get_settings.cache_clear()


@pytest.fixture
def web_only(web_grades_nothing: None, authoring: Authoring) -> Iterator[Authoring]:
    """The authoring app whose web process has no grading threads."""
    assert not get_settings().grades_in_web
    yield authoring


def _job(job_id: int) -> Job:
    with session_factory()() as session:
        found = session.get(Job, job_id)
        assert found is not None
        session.expunge(found)
        return found


def test_the_web_process_only_queues_a_run_and_a_consumer_of_the_queue_grades_it(
    web_only: Authoring,
) -> None:
    a = web_only
    solution = (a.folder / "exercises/split-heads/solutions/numpy.py").read_text("utf-8")
    body = {"exercise": "split-heads", "code": solution, "framework": "numpy", "mode": "submit"}
    queued = a.client.post(f"{API}/runs", json=body, headers=a.editor)
    assert queued.status_code == 202, queued.text
    job_id = queued.json()["job"]
    assert queued.json() == {"job": job_id, "state": "queued", "url": f"{API}/runs/{job_id}"}
    time.sleep(1.0)  # the web process has no consumer: nothing takes the job
    polled: dict[str, Any] = a.client.get(f"{API}/runs/{job_id}", headers=a.editor).json()
    assert (polled["state"], polled["report"]) == ("queued", None)
    found = _job(job_id)
    assert (found.kind, found.state, found.attempts) == ("preview_run", "queued", 0)

    worker = JobRuntime(get_settings(), grade=True, concurrency=1, role="worker")
    worker.reaper.grace_seconds = 0.2  # the worker's reaper hands it the queued job
    worker.start()
    try:
        deadline = time.monotonic() + 400
        while _job(job_id).state in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        worker.stop(5)
    found = _job(job_id)
    assert (found.state, found.attempts) == ("done", 1)  # claimed once, by the worker
    polled = a.client.get(f"{API}/runs/{job_id}", headers=a.editor).json()
    assert polled["state"] == "done" and polled["report"]["verdict"] == "accepted"
    for who in (a.instructor, a.student):
        assert a.client.get(f"{API}/runs/{job_id}", headers=who).status_code == 403
        assert a.client.post(f"{API}/runs", json=body, headers=who).status_code == 403
    assert a.client.get(f"{API}/runs/999999", headers=a.editor).status_code == 404
    assert a.client.get(f"{API}/runs/{job_id}", headers=a.admin).status_code == 404  # not theirs


def test_the_preview_names_an_exercise_and_framework_the_draft_has(web_only: Authoring) -> None:
    a = web_only
    for body, status in (
        ({"exercise": "nope", "code": "x", "framework": "numpy"}, 404),
        ({"exercise": "split-heads", "code": "x", "framework": "cobol"}, 404),
        ({"exercise": "split-heads", "code": "x" * (3 << 20), "framework": "numpy"}, 413),
    ):
        assert a.client.post(f"{API}/runs", json=body, headers=a.editor).status_code == status
    with session_factory()() as session:
        assert session.query(Job).filter_by(kind="preview_run").count() == 0
