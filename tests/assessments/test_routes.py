"""The student API and pages: start, autosave, reload, hand in, and refusals that change nothing."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.assessments import service
from app.assessments.models import AssessmentAnswer, AssessmentAttempt
from app.db import session_factory
from app.jobs.deps import get_queue
from app.main import create_app
from app.users.models import Role
from tests.assessments.conftest import RIGHT, exam, write
from tests.conftest import make_token
from tests.jobs.helpers import RecordingQueue

START = "/api/assessments/quick/attempts"


def headers(email: str, role: Role = Role.student) -> dict[str, str]:
    return {"Authorization": f"Bearer {make_token(email, role)}"}


def save(client: TestClient, h: dict[str, str], attempt: int, item: str, value: Any) -> Any:
    return client.put(
        f"/api/assessments/attempts/{attempt}/answers",
        json={"item": item, "value": value},
        headers=h,
    )


def test_start_save_reload_and_hand_in(exam_client: TestClient) -> None:
    h = headers("ann@example.org")
    started = exam_client.post(START, headers=h)
    assert started.status_code == 201, started.text
    state = started.json()
    assert state["status"] == "open" and 29 * 60 <= state["seconds_left"] <= 30 * 60
    assert set(state["items"]) == set(RIGHT)
    for key, value in RIGHT.items():
        assert save(exam_client, h, state["id"], key, value).status_code == 200
    again = save(exam_client, h, state["id"], "q:learned-absolute/table-shape", "(T, d_model)")
    assert again.json()["saves"] == 2
    # A reload (or another device) gets every saved answer back from the server.
    read = exam_client.get(f"/api/assessments/attempts/{state['id']}", headers=h).json()
    assert read["answers"]["q:learned-absolute/table-shape"] == "(T, d_model)"
    assert exam_client.post(START, headers=h).json()["id"] == state["id"]  # same attempt
    page = exam_client.get(f"/assessments/attempts/{state['id']}", headers=h)
    assert page.status_code == 200 and 'value="(T, d_model)"' in page.text
    assert 'value="gpt-2" checked' in page.text
    done = exam_client.post(f"/api/assessments/attempts/{state['id']}/submit", headers=h).json()
    assert done["status"] == "submitted" and done["submitted_by"] == "student"
    assert done["released"] is True and abs(done["score"] - 2 / 3) < 1e-9
    late = save(exam_client, h, state["id"], "q:learned-absolute/table-shape", "(max_len, d_model)")
    assert late.status_code == 409 and "already handed in" in late.json()["detail"]
    result = exam_client.get(f"/assessments/attempts/{state['id']}", headers=h)
    assert "You handed in this attempt" in result.text and "66.7%" in result.text
    assert exam_client.post(START, headers=h).status_code == 409  # one attempt allowed


def test_someone_elses_attempt_is_refused_and_unchanged(exam_client: TestClient) -> None:
    ann, bob = headers("ann@example.org"), headers("bob@example.org")
    attempt = exam_client.post(START, headers=ann).json()["id"]
    save(exam_client, ann, attempt, "q:learned-absolute/table-shape", "(max_len, d_model)")
    refused = save(exam_client, bob, attempt, "q:learned-absolute/table-shape", "(1, 2)")
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        "This attempt belongs to another student; you can answer only your own."
    )
    assert exam_client.get(f"/api/assessments/attempts/{attempt}", headers=bob).status_code == 403
    submit = f"/api/assessments/attempts/{attempt}/submit"
    assert exam_client.post(submit, headers=bob).status_code == 403
    mine = exam_client.get(f"/api/assessments/attempts/{attempt}", headers=ann).json()
    assert mine["answers"] == {"q:learned-absolute/table-shape": "(max_len, d_model)"}
    assert mine["status"] == "open"


def test_answers_after_the_deadline_are_refused_and_the_attempt_handed_in(
    exam_client: TestClient,
) -> None:
    h = headers("ann@example.org")
    attempt = exam_client.post(START, headers=h).json()["id"]
    save(exam_client, h, attempt, "q:learned-absolute/table-shape", "(max_len, d_model)")
    ended = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)
    with session_factory()() as session:
        session.get(AssessmentAttempt, attempt).deadline = ended  # type: ignore[union-attr]
        session.commit()
    late = save(exam_client, h, attempt, "q:learned-absolute/bert-base-params", "393216")
    assert late.status_code == 409
    assert late.json()["detail"].startswith("Time is up: this attempt ended at ")
    assert "was not saved" in late.json()["detail"]
    state = exam_client.get(f"/api/assessments/attempts/{attempt}", headers=h).json()
    assert state["status"] == "submitted" and state["submitted_by"] == "clock"
    assert state["answers"] == {"q:learned-absolute/table-shape": "(max_len, d_model)"}
    assert abs(state["score"] - 1 / 3) < 1e-9
    with session_factory()() as session:
        assert session.query(AssessmentAnswer).count() == 1


def test_bad_bodies_get_clear_errors(exam_client: TestClient) -> None:
    h = headers("ann@example.org")
    attempt = exam_client.post(START, headers=h).json()["id"]
    unknown = save(exam_client, h, attempt, "q:why-position/dog-bites-man", "yes")
    assert unknown.status_code == 422
    assert unknown.json()["detail"] == (
        "'q:why-position/dog-bites-man' is not one of this attempt's questions."
    )
    extra = exam_client.put(
        f"/api/assessments/attempts/{attempt}/answers",
        json={"item": "q:learned-absolute/table-shape", "value": "x", "more": 1},
        headers=h,
    )
    assert extra.status_code == 422
    assert exam_client.get("/api/assessments/attempts/99999", headers=h).status_code == 404
    assert exam_client.post("/api/assessments/nope/attempts", headers=h).status_code == 404
    assert exam_client.post(START).status_code == 401


def test_no_javascript_form_saves_and_hands_in(exam_client: TestClient) -> None:
    h = headers("ann@example.org")
    attempt = exam_client.post(START, headers=h).json()["id"]
    items = exam_client.get(f"/api/assessments/attempts/{attempt}", headers=h).json()["items"]
    index = items.index("q:learned-absolute/bert-base-params")
    form = {f"item-{index}": "393216", "action": "submit"}
    response = exam_client.post(
        f"/assessments/attempts/{attempt}", data=form, headers=h, follow_redirects=False
    )
    assert response.status_code == 303
    state = exam_client.get(f"/api/assessments/attempts/{attempt}", headers=h).json()
    assert state["status"] == "submitted" and abs(state["score"] - 1 / 3) < 1e-9


def test_intro_page_shows_the_window_and_start(exam_client: TestClient) -> None:
    h = headers("ann@example.org")
    page = exam_client.get("/assessments/quick", headers=h)
    assert page.status_code == 200 and 'id="start"' in page.text
    assert "Log out" in page.text and 'href="/assessments"' in page.text
    assert "30 minutes from when you start" in page.text
    assert exam_client.get("/assessments", headers=h).status_code == 200
    assert exam_client.get("/assessments/nope", headers=h).status_code == 404


def test_an_exercise_in_an_exam_is_graded_by_the_submission_path(course_root: Path) -> None:
    from app.submissions.models import Submission

    spec = exam()
    spec["parts"] = [{"title": "Code", "items": [{"exercise": "position-embedding-gather"}]}]
    write(course_root, spec)
    with TestClient(create_app()) as client:
        h = headers("ann@example.org")
        attempt = client.post(START, headers=h).json()["id"]
        page = client.get(f"/assessments/attempts/{attempt}", headers=h)
        assert '<textarea class="exam-code"' in page.text and "def position_embedding_gather" in (
            page.text
        )
        code = {
            "framework": "numpy",
            "code": "def position_embedding_gather(p, t):\n    return t[p]\n",
        }
        saved = save(client, h, attempt, "x:position-embedding-gather", code)
        assert saved.status_code == 200, saved.text
        state = client.post(f"/api/assessments/attempts/{attempt}/submit", headers=h).json()
        assert state["status"] == "submitted"
        with session_factory()() as session:
            [row] = session.query(Submission).all()
            assert (row.exercise_slug, row.code, row.mode) == (
                "position-embedding-gather",
                code["code"],
                "submit",
            )
        teacher = {"Authorization": f"Bearer {make_token('t@example.org', Role.instructor)}"}
        regraded = client.post(
            "/instructor/assessments/quick/regrade", headers=teacher, follow_redirects=False
        )
        assert regraded.status_code == 303
        assert client.post("/instructor/assessments/quick/regrade", headers=h).status_code == 403


def test_a_handed_in_exercise_goes_to_the_queue_the_dependency_gives(course_root: Path) -> None:
    spec = exam()
    spec["parts"] = [{"title": "Code", "items": [{"exercise": "position-embedding-gather"}]}]
    write(course_root, spec)
    queue = RecordingQueue()
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: queue
    with TestClient(app) as client:
        h = headers("ann@example.org")
        attempt = client.post(START, headers=h).json()["id"]
        code = {"framework": "numpy", "code": "def position_embedding_gather(p, t):\n    return t"}
        assert save(client, h, attempt, "x:position-embedding-gather", code).status_code == 200
        state = client.post(f"/api/assessments/attempts/{attempt}/submit", headers=h).json()
        assert state["status"] == "submitted"
    from app.submissions.models import Submission

    with session_factory()() as session:
        assert queue.ids == [row.id for row in session.query(Submission).all()]
        assert len(queue.ids) == 1


def test_a_form_whose_time_runs_out_while_saving_is_handed_in_not_an_error(
    exam_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = headers("ann@example.org")
    attempt = exam_client.post(START, headers=h).json()["id"]
    items = exam_client.get(f"/api/assessments/attempts/{attempt}", headers=h).json()["items"]
    index = items.index("q:learned-absolute/bert-base-params")
    real = service.save_answer

    def late(**kwargs: Any) -> Any:  # the clock passes the deadline between reading and saving
        kwargs["attempt"].deadline = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
        return real(**kwargs)

    monkeypatch.setattr(service, "save_answer", late)
    response = exam_client.post(
        f"/assessments/attempts/{attempt}",
        data={f"item-{index}": "393216"},
        headers=h,
        follow_redirects=False,
    )
    assert response.status_code == 303  # to the result page, which says it was handed in
    state = exam_client.get(f"/api/assessments/attempts/{attempt}", headers=h).json()
    assert state["status"] == "submitted" and state["submitted_by"] == "clock"
    assert state["answers"] == {}
