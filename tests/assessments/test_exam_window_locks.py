"""While an exam is open, a student who has not started it cannot practise its items or open
their answers: checked answers, model solutions, hints and hidden tests would be the exam's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.assessments.models import Accommodation, AssessmentAttempt
from app.courses.first import first_course_slug
from app.db import session_factory
from app.jobs.deps import get_queue
from app.main import create_app
from app.offerings.models import Enrollment, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.progress.models import QuizAttempt
from app.users.models import Role, User
from tests.assessments.conftest import write
from tests.assessments.world import ANN, EXERCISE, LESSON, TEACHER, headers, midterm, submissions
from tests.jobs.helpers import RecordingQueue

QUIZ = {"answers": {"table-shape": "(max_len, d_model)"}}
PRACTICE = {"exercise": EXERCISE, "code": "x = 1", "framework": "numpy"}
HOUR = dt.timedelta(hours=1)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


@pytest.fixture
def serve(course_root: Path) -> Iterator[Any]:
    """Serve the course with the midterm written as `overrides` say."""
    clients: list[TestClient] = []

    def start(**overrides: Any) -> TestClient:
        write(course_root, midterm(**overrides))
        app = create_app()
        app.dependency_overrides[get_queue] = lambda: RecordingQueue()
        client = TestClient(app)
        clients.append(client)
        return client.__enter__()

    yield start
    for client in clients:
        client.__exit__(None, None, None)


def _quiz(client: TestClient, email: str, role: Role = Role.student) -> Any:
    return client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=headers(email, role))


def _practice(client: TestClient, email: str) -> Any:
    return client.post("/api/submissions", json=PRACTICE, headers=headers(email))


def _quiz_attempts() -> int:
    with session_factory()() as session:
        return session.query(QuizAttempt).count()


def test_a_student_who_has_not_started_the_open_exam_cannot_practise_its_items(
    serve: Any,
) -> None:
    client = serve()
    quiz = _quiz(client, ANN)
    assert quiz.status_code == 409, quiz.text
    detail = quiz.json()["detail"]
    assert detail.startswith("This question is part of the exam 'Midterm', open until ")
    assert detail.endswith(
        "so practising it is closed until then (if you take the exam, until your scores are "
        "released)."
    )
    practice = _practice(client, ANN)
    assert practice.status_code == 409
    assert practice.json()["detail"].startswith(
        "This exercise is part of the exam 'Midterm', open until "
    )
    assert _quiz_attempts() == 0 and submissions() == []
    form = client.post(
        f"/lessons/{LESSON}/quiz",
        data={"table-shape": "(max_len, d_model)"},
        headers=headers(ANN),
        follow_redirects=False,
    )
    assert form.status_code == 409 and "Correct" not in form.text and _quiz_attempts() == 0


def test_its_model_solutions_and_hints_are_closed_too(serve: Any) -> None:
    client = serve()
    solution = client.get(f"/exercises/{EXERCISE}/solution", headers=headers(ANN))
    assert solution.status_code == 403
    assert "Model solutions of this exercise are closed while the exam &#39;Midterm&#39;" in (
        solution.text
    )
    hint = client.post(f"/exercises/{EXERCISE}/hints", headers=headers(ANN), follow_redirects=False)
    assert hint.status_code == 403 and "exam &#39;Midterm&#39;" in hint.text
    page = client.get(f"/exercises/{EXERCISE}", headers=headers(ANN))
    assert page.status_code == 200  # the exercise itself is still readable


def test_once_started_the_running_attempt_says_why(serve: Any) -> None:
    client = serve()
    started = client.post("/api/assessments/midterm/attempts", headers=headers(ANN))
    assert started.status_code == 201
    quiz = _quiz(client, ANN)
    assert quiz.status_code == 409
    assert quiz.json()["detail"].startswith("This question is part of your running attempt")


def test_staff_are_not_held(serve: Any) -> None:
    client = serve()
    assert _quiz(client, TEACHER, Role.instructor).status_code == 200
    solution = client.get(
        f"/exercises/{EXERCISE}/solution", headers=headers(TEACHER, Role.instructor)
    )
    assert solution.status_code == 200


def _ta_of_a_second_section(email: str) -> None:
    """Make this person (a student of the first offering) a TA of a second one, same course."""
    with session_factory()() as session:
        section = create_offering(
            session=session, course_slug=first_course_slug(), title="Section B"
        )
        person = session.scalar(select(User).where(User.email == email))
        assert person is not None
        enroll(session=session, offering=section, user=person, role=OfferingRole.ta)


def test_a_student_who_teaches_another_section_is_held_where_she_sits_the_exam(
    serve: Any,
) -> None:
    """Ann sits the midterm in her offering and is a TA of another: she is held as a student."""
    client = serve()
    headers(ANN)  # her account, a student of the first offering
    _ta_of_a_second_section(ANN)
    solution = client.get(f"/exercises/{EXERCISE}/solution", headers=headers(ANN))
    assert solution.status_code == 403 and "exam &#39;Midterm&#39;" in solution.text
    history = client.get(f"/exercises/{EXERCISE}/history", headers=headers(ANN))
    assert history.status_code == 200 and "def position_embedding_gather" not in history.text
    assert _quiz(client, ANN).status_code == 409
    assert _practice(client, ANN).status_code == 409
    hint = client.post(f"/exercises/{EXERCISE}/hints", headers=headers(ANN), follow_redirects=False)
    assert hint.status_code == 403
    assert _quiz_attempts() == 0 and submissions() == []
    started = client.post("/api/assessments/midterm/attempts", headers=headers(ANN))
    assert started.status_code == 201  # she still sits it, and it counts where she is a student
    with session_factory()() as session:
        attempt = session.scalar(select(AssessmentAttempt))
        assert attempt is not None
        assert attempt.offering_id == first_offering(session=session).id


def test_last_terms_student_who_teaches_this_term_is_not_held(serve: Any) -> None:
    """Ann was a student of the first offering, which has ended; she is a TA of this term's."""
    client = serve()
    ann = headers(ANN)
    with session_factory()() as session:
        first_offering(session=session).ends_at = _now() - 24 * HOUR
        session.commit()
    _ta_of_a_second_section(ANN)
    assert client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=ann).status_code == 200
    assert client.get(f"/exercises/{EXERCISE}/solution", headers=ann).status_code == 200
    with session_factory()() as session:  # her practice counts in the term she teaches
        attempt = session.scalar(select(QuizAttempt))
        assert attempt is not None and attempt.offering_id != first_offering(session=session).id


def test_a_ta_who_sits_no_offering_of_the_course_is_not_held(serve: Any) -> None:
    client = serve()
    tina = headers("tina@example.org")  # made a student of the first offering; not any more:
    with session_factory()() as session:
        found = session.scalar(select(User).where(User.email == "tina@example.org"))
        assert found is not None
        for enrolment in session.scalars(select(Enrollment).where(Enrollment.user_id == found.id)):
            session.delete(enrolment)
        session.commit()
    _ta_of_a_second_section("tina@example.org")
    quiz = client.post(f"/api/lessons/{LESSON}/quiz", json=QUIZ, headers=tina)
    assert quiz.status_code == 200
    assert client.get(f"/exercises/{EXERCISE}/solution", headers=tina).status_code == 200


def test_before_the_exam_opens_and_after_it_closes_practice_is_open(serve: Any) -> None:
    now = _now()
    later = serve(opens=(now + HOUR).isoformat(), closes=(now + 3 * HOUR).isoformat())
    assert _quiz(later, ANN).status_code == 200
    assert _practice(later, ANN).status_code == 202
    over = serve(opens=(now - 3 * HOUR).isoformat(), closes=(now - HOUR).isoformat())
    assert _quiz(over, "bo@x.org").status_code == 200  # never sat it: nothing to release


def test_an_own_window_keeps_the_items_closed_to_that_student_only(serve: Any) -> None:
    """The class's window has closed; Ann's make-up sitting is open until tomorrow."""
    now = _now()
    client = serve(opens=(now - 3 * HOUR).isoformat(), closes=(now - HOUR).isoformat())
    headers(ANN)  # her account, in the first offering
    with session_factory()() as session:
        ann = session.scalar(select(User).where(User.email == ANN))
        assert ann is not None
        session.add(
            Accommodation(
                user_id=ann.id,
                course_slug=first_course_slug(),
                assessment_slug="midterm",
                offering_id=first_offering(session=session).id,
                extra_minutes=0,
                opens_at=now + HOUR,
                closes_at=now + 24 * HOUR,
                reason="make-up",
            )
        )
        session.commit()
    quiz = _quiz(client, ANN)
    assert quiz.status_code == 409 and "open until" in quiz.json()["detail"]
    assert _quiz(client, "bo@x.org").status_code == 200


def test_open_during_practice_and_homework_leave_practice_open(serve: Any) -> None:
    assert _quiz(serve(open_during={"practice": True}), ANN).status_code == 200
    homework = serve(kind="homework", time_limit_minutes=None)
    assert _quiz(homework, "bo@x.org").status_code == 200
    assert _practice(homework, "bo@x.org").status_code == 202


def test_on_postgresql_the_same_holds(
    course_root: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """The not-started hold, staff and an own window, on a throwaway PostgreSQL database."""
    from app.migrate import upgrade_head
    from tests.postgres import throwaway_database

    with throwaway_database(monkeypatch, data_dir):
        upgrade_head()
        write(course_root, midterm())
        app = create_app()
        app.dependency_overrides[get_queue] = lambda: RecordingQueue()
        with TestClient(app) as client:
            assert _quiz(client, ANN).status_code == 409
            assert _practice(client, ANN).status_code == 409
            assert _quiz(client, TEACHER, Role.instructor).status_code == 200
            _ta_of_a_second_section(ANN)  # a TA elsewhere is still held where she sits it
            assert _quiz(client, ANN).status_code == 409
            assert client.get(f"/exercises/{EXERCISE}", headers=headers(ANN)).status_code == 200
            started = client.post("/api/assessments/midterm/attempts", headers=headers(ANN))
            assert started.status_code == 201
            assert "your running attempt" in _quiz(client, ANN).json()["detail"]
            with session_factory()() as session:
                attempt = session.scalar(select(AssessmentAttempt))
                assert attempt is not None
                assert attempt.offering_id == first_offering(session=session).id


def test_the_pages_say_why_and_hide_past_answers_of_held_questions(serve: Any) -> None:
    """Ann practised the quiz last week; while the exam is open its explanations stay hidden."""
    now = _now()
    before = serve(opens=(now + HOUR).isoformat(), closes=(now + 3 * HOUR).isoformat())
    assert _quiz(before, ANN).status_code == 200
    explanation = "One row per position, one column per feature"
    assert explanation in before.get(f"/lessons/{LESSON}", headers=headers(ANN)).text
    client = serve()  # the exam is open now
    lesson = client.get(f"/lessons/{LESSON}", headers=headers(ANN))
    assert lesson.status_code == 200 and explanation not in lesson.text
    assert "part of the exam &#39;Midterm&#39;, open until" in lesson.text
    assert 'id="quiz-held"' in lesson.text
    listed = client.get(f"/api/lessons/{LESSON}/quiz/attempts", headers=headers(ANN))
    assert listed.status_code == 409 and explanation not in listed.text
    exercise = client.get(f"/exercises/{EXERCISE}", headers=headers(ANN))
    assert 'id="practice-held"' in exercise.text
    assert "part of the exam &#39;Midterm&#39;, open until" in exercise.text
    teacher = client.get(f"/lessons/{LESSON}", headers=headers(TEACHER, Role.instructor))
    assert 'id="quiz-held"' not in teacher.text
