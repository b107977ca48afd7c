"""Regrade with the real grader: new scores, old reports kept, overrides kept, errors recorded."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app import hooks
from app.content.service import load_from_settings
from app.db import database_now, session_factory
from app.instructor.models import RegradeJob, SubmissionReport
from app.instructor.regrade import job_view, run_job, start_regrade, version_on_disk
from app.models_base import utcnow
from app.offerings.place import Place
from app.submissions.models import Submission
from app.users.models import Role, User
from tests.instructor.conftest import EXERCISE, add_submission, at, person
from tests.users.helpers import form_token, logged_in_client, make_instructor

FUNC = EXERCISE.replace("-", "_")
ARANGE = "np.arange(x.shape[1])[None, :, None]"
GOOD = f"import numpy as np\n\ndef {FUNC}(x):\n    return x + {ARANGE}\n"
ONE_BASED = f"import numpy as np\n\ndef {FUNC}(x):\n    return x + 1 + {ARANGE}\n"
UNCHANGED = f"def {FUNC}(x):\n    return x\n"  # right only when T == 1
SINGLE_TOKEN_CASES = """
import numpy as np

def cases():
    rng = np.random.default_rng(7)
    x = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    return [
        {"name": "one token", "hidden": False, "inputs": {"x": x(2, 1, 3)}},
        {"name": "one token, wide", "hidden": True, "inputs": {"x": x(1, 1, 9)}},
    ]
"""


def _wait(check: Any, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def _recorder(into: list[int | None]) -> Any:
    def record(event: hooks.GradeRecorded) -> None:
        into.append(event.submission_id)

    return record


def _graded(client: TestClient, headers: dict[str, str], code: str) -> dict[str, Any]:
    sid = client.post(
        "/api/submissions", json={"exercise": EXERCISE, "code": code}, headers=headers
    ).json()["id"]

    def done() -> Any:
        body = client.get(f"/api/submissions/{sid}", headers=headers).json()
        return body if body["status"] == "done" else None

    return _wait(done)  # type: ignore[no-any-return]


def test_regrade_updates_scores_and_keeps_history(
    app_client: TestClient, course_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded: list[int | None] = []  # what the LMS outbox hears: one post per changed score
    monkeypatch.setattr(
        hooks.GRADE_RECORDED, "plugs", [*hooks.GRADE_RECORDED.plugs, _recorder(recorded)]
    )
    _, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    good = _graded(app_client, student, GOOD)
    wrong = _graded(app_client, student, ONE_BASED)
    partial = _graded(app_client, student, UNCHANGED)
    assert (good["score"], wrong["score"], partial["score"]) == (
        1.0,
        0.0,
        0.1,
    )  # 1 of 5 fixed + 5 generated
    assert wrong["tests"][0]["misconception"]["id"] == "one-based-positions"
    override = app_client.post(
        f"/api/instructor/submissions/{wrong['id']}/override",
        json={"score": 0.5, "reason": "Right idea, off by one"},
        headers=teacher,
    )
    assert override.status_code == 200
    # A stored submission the grader cannot take any more (framework no longer offered).
    with session_factory()() as session:
        stu_id = session.get(Submission, good["id"]).user_id  # type: ignore[union-attr]
    broken = add_submission(stu_id, EXERCISE, [True], at(1))
    with session_factory()() as session:
        session.get(Submission, broken).framework = "torch"  # type: ignore[union-attr]
        session.commit()

    (course_dir / "exercises" / EXERCISE / "cases.py").write_text(SINGLE_TOKEN_CASES)
    started = app_client.post(f"/api/exercises/{EXERCISE}/regrade", headers=teacher)
    assert started.status_code == 202, started.text
    assert started.json()["total"] == 4
    queued_job = started.json()["job"]
    assert started.json()["job_url"] == f"/api/jobs/{queued_job}"  # no course or offering URL
    before = len(recorded)

    def finished() -> Any:
        body = app_client.get(f"/api/exercises/{EXERCISE}/regrade", headers=teacher).json()
        return body if body["status"] == "done" else None

    job = _wait(finished)
    assert (job["done"], job["total"], job["changed"], job["failed"]) == (4, 4, 1, 1)
    assert recorded[before:] == [partial["id"]]  # the one changed score (the override stays)
    task = app_client.get(f"/api/jobs/{queued_job}", headers=teacher).json()
    assert (task["kind"], task["state"], task["attempts"]) == ("regrade", "done", 1)
    assert (task["result"]["done"], task["result"]["changed"]) == (4, 1)
    assert app_client.get(f"/api/jobs/{queued_job}", headers=student).status_code == 403
    assert app_client.get("/api/jobs/999999", headers=teacher).status_code == 404
    assert job["errors"][0]["submission_id"] == broken and "torch" in job["errors"][0]["message"]

    after = {
        s["id"]: app_client.get(f"/api/submissions/{s['id']}", headers=student).json()
        for s in (good, wrong, partial)
    }
    assert after[partial["id"]]["score"] == 1.0 and after[partial["id"]]["verdict"] == "accepted"
    assert [t["name"] for t in after[partial["id"]]["tests"]] == ["one token", "one token, wide"]
    assert after[good["id"]]["score"] == 1.0
    kept = after[wrong["id"]]
    assert kept["verdict"] == "wrong_answer" and len(kept["tests"]) == 2
    assert kept["score"] == 0.5 and kept["override"]["reason"] == "Right idea, off by one"
    with session_factory()() as session:
        history = session.scalars(
            select(SubmissionReport).where(SubmissionReport.submission_id == partial["id"])
        ).all()
        assert [(h.verdict, h.score, len(h.report["tests"])) for h in history] == [  # type: ignore[index]
            ("wrong_answer", 0.1, 10)
        ]
        # The new report names the edited course's version; the replaced one keeps its own.
        regraded = session.get(Submission, partial["id"])
        assert regraded is not None and history[0].content_version == partial["content_version"]
        assert regraded.content_version == version_on_disk(regraded.course_slug)
        assert regraded.content_version not in (None, partial["content_version"])
        # The behaviour key follows the new report (issue 51).
        old_key = history[0].report["behaviour"]["key"]  # type: ignore[index]
        assert regraded.behaviour_key == regraded.report["behaviour"]["key"] != old_key  # type: ignore[index]
        assert session.get(Submission, broken).report["score"] == 1.0  # type: ignore[union-attr]

    grades = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    assert grades["students"][0]["exercises"][EXERCISE]["best"] == 1.0
    page = app_client.get(f"/instructor/students/{stu_id}", headers=teacher).text
    assert "Earlier report, replaced" in page and "after re-grading" in page
    analytics = app_client.get(f"/instructor/exercises/{EXERCISE}", headers=teacher).text
    assert "Done: 4 / 4 submissions, 1 score changed, 1 failed." in analytics


def test_regrade_of_an_unknown_exercise_is_404(app_client: TestClient) -> None:
    teacher = person("t@example.org", "T", Role.instructor)[1]
    assert app_client.post("/api/exercises/nope/regrade", headers=teacher).status_code == 404
    status = app_client.get(f"/api/exercises/{EXERCISE}/regrade", headers=teacher).json()
    assert status == {"exercise": EXERCISE, "status": "none", "done": 0, "total": 0}


def test_a_stale_job_is_resumed_where_it_stopped(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher_id, _ = person("t@example.org", "T", Role.instructor)
    first = add_submission(stu, EXERCISE, [False], at(1), code=GOOD)
    second = add_submission(stu, EXERCISE, [False], at(2), code=GOOD)
    with session_factory()() as session:
        teacher = session.get(User, teacher_id)
        assert teacher is not None
        launched: list[int] = []
        job, started = start_regrade(
            session=session,
            slug=EXERCISE,
            instructor=teacher,
            launch=launched.append,
            place=Place(load_from_settings()),
        )
        assert started and launched == [job.id] and job.total == 2
        # The process died after the first submission: its report is in the history.
        session.add(SubmissionReport(submission_id=first, regrade_job_id=job.id, verdict="x"))
        job.status, job.done = "running", 1
        job.heartbeat_at = utcnow() - dt.timedelta(minutes=5)
        session.commit()
        assert job_view(job, EXERCISE, now=database_now(session))["status"] == "interrupted"
        again, resumed = start_regrade(
            session=session,
            slug=EXERCISE,
            instructor=teacher,
            launch=launched.append,
            place=Place(load_from_settings()),
        )
        assert resumed and again.id == job.id and launched == [job.id, job.id]
        busy, restarted = start_regrade(
            session=session,
            slug=EXERCISE,
            instructor=teacher,
            launch=launched.append,
            place=Place(load_from_settings()),
        )
        assert not restarted and busy.id == job.id and len(launched) == 2
    run_job(job.id)
    with session_factory()() as session:
        done = session.get(RegradeJob, job.id)
        assert done is not None and (done.status, done.done, done.total) == ("done", 2, 2)
        assert session.get(Submission, first).score == 0.0  # type: ignore[union-attr]
        assert session.get(Submission, second).score == 1.0  # type: ignore[union-attr]


def test_the_button_works_without_javascript(app_client: TestClient) -> None:
    user = logged_in_client(app_client, "prof@example.org", name="Prof")
    make_instructor(user.id)
    page = app_client.get(f"/instructor/exercises/{EXERCISE}").text
    response = app_client.post(
        f"/instructor/exercises/{EXERCISE}/regrade",
        data={"csrf_token": form_token(page.split('class="regrade"', 1)[1])},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == f"/instructor/exercises/{EXERCISE}?regrade=started"
    refused = app_client.post(f"/instructor/exercises/{EXERCISE}/regrade", data={})
    assert refused.status_code == 403  # no CSRF token
