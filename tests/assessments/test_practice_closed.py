"""Practice closes on a running exam's own items: refused with 409 and a reason, never graded."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.assessments.models import AssessmentAttempt
from app.db import session_factory
from app.jobs.deps import get_queue
from app.main import create_app
from app.progress.models import QuizAttempt
from tests.assessments.conftest import write
from tests.assessments.world import ANN, EXERCISE, LESSON, Sitting, headers, midterm, submissions
from tests.jobs.helpers import RecordingQueue

QUIZ = {"answers": {"table-shape": "(max_len, d_model)"}}
PRACTICE = {"exercise": EXERCISE, "code": "x = 1", "framework": "numpy"}


def _client(course_root: Path, **overrides: object) -> TestClient:
    write(course_root, midterm(**overrides))
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: RecordingQueue()
    return TestClient(app)


@pytest.fixture
def client(course_root: Path) -> Iterator[TestClient]:
    with _client(course_root) as client:
        yield client


def _quiz_attempts() -> int:
    with session_factory()() as session:
        return session.query(QuizAttempt).count()


def test_the_practice_quiz_holding_an_exam_question_is_refused(client: TestClient) -> None:
    Sitting(client).start()
    refused = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers(ANN))
    assert refused.status_code == 409
    assert refused.json() == {"detail": refused.json()["detail"]} and refused.json()[
        "detail"
    ].startswith(
        "This question is part of your running attempt at 'Midterm', so practising it is "
        "closed until your attempt ends (at "
    )
    assert _quiz_attempts() == 0
    form = client.post(
        f"/lessons/{LESSON}/quiz",
        data={"table-shape": "(max_len, d_model)"},
        headers=headers(ANN),
        follow_redirects=False,
    )
    assert form.status_code == 409 and "Correct" not in form.text
    assert _quiz_attempts() == 0
    other = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers("bo@x.org"))
    assert other.status_code == 409  # not started yet: held until the exam closes
    assert "part of the exam 'Midterm', open until" in other.json()["detail"]
    lesson = client.post(
        "/api/lessons/why-position/quiz", json={"answers": {}}, headers=headers("bo@x.org")
    )
    assert lesson.status_code == 200  # a lesson the exam does not ask is practised as before


def test_the_practice_exercise_of_a_running_exam_is_refused(client: TestClient) -> None:
    Sitting(client).start()
    for mode in ("submit", "run"):
        refused = client.post(
            "/api/submissions", json={**PRACTICE, "mode": mode}, headers=headers(ANN)
        )
        assert refused.status_code == 409
        assert refused.json()["detail"].startswith(
            "This exercise is part of your running attempt at 'Midterm'"
        )
    assert submissions() == []


def test_practice_waits_for_the_release_after_hand_in(client: TestClient) -> None:
    """Released after the exam closes: an answer checked in practice would tell the score."""
    sitting = Sitting(client)
    sitting.start()
    sitting.answer_all()
    sitting.hand_in()
    quiz = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers(ANN))
    assert quiz.status_code == 409 and _quiz_attempts() == 0
    assert quiz.json()["detail"].startswith(
        "This question was part of your attempt at 'Midterm', so practising it opens when its "
        "scores are released (at "
    )
    practice = client.post("/api/submissions", json=PRACTICE, headers=headers(ANN))
    assert practice.status_code == 409
    assert [row.purpose for row in submissions()] == [f"attempt:{sitting.attempt}"]
    sitting.release()
    quiz = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers(ANN))
    assert quiz.status_code == 200
    practice = client.post("/api/submissions", json=PRACTICE, headers=headers(ANN))
    assert practice.status_code == 202
    assert [row.purpose for row in submissions()] == [f"attempt:{sitting.attempt}", "practice"]


def test_practice_opens_at_hand_in_when_scores_are_shown_then(course_root: Path) -> None:
    with _client(course_root, release="on_submit") as client:
        sitting = Sitting(client)
        sitting.start()
        sitting.answer_all()
        sitting.hand_in()
        quiz = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers(ANN))
        assert quiz.status_code == 200
        practice = client.post("/api/submissions", json=PRACTICE, headers=headers(ANN))
        assert practice.status_code == 202


def test_practice_of_an_attempt_past_its_time_waits_for_the_clock(course_root: Path) -> None:
    """The clock has not handed the attempt in yet: its items stay closed, not reopened."""
    with _client(course_root, release="on_submit") as client:
        sitting = Sitting(client)
        sitting.start()
        with session_factory()() as session:
            row = session.get(AssessmentAttempt, sitting.attempt)
            assert row is not None
            row.deadline = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)
            session.commit()
        quiz = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers(ANN))
        assert (
            quiz.status_code == 409
            and "opens when its scores are released" in (quiz.json()["detail"])
        )


def test_open_during_practice_keeps_practice_open(course_root: Path) -> None:
    with _client(course_root, open_during={"practice": True}) as client:
        Sitting(client).start()
        quiz = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers(ANN))
        assert quiz.status_code == 200
        practice = client.post("/api/submissions", json=PRACTICE, headers=headers(ANN))
        assert practice.status_code == 202
