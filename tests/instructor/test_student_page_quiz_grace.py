"""The instructor's page about one student marks a quiz attempt late as the gradebook does:
after the due date and the offering's grace period."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient

from app.db import session_factory
from app.offerings.service import first_offering
from app.progress.models import QuizAttempt
from app.users.models import Role
from tests.instructor.conftest import LESSON, person


def test_a_quiz_attempt_inside_the_grace_period_is_not_marked_late(
    app_client: TestClient,
) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    answer = app_client.post(
        "/api/instructor/late-policy", json={"mode": "accept", "grace_minutes": 60}, headers=teacher
    )
    assert answer.status_code == 200, answer.text
    with session_factory()() as session:  # the quiz was due 2020-01-01 00:00; 30 minutes after
        session.add(
            QuizAttempt(
                user_id=stu,
                lesson_slug=LESSON,
                answers={},
                results={},
                score=0.5,
                offering_id=first_offering(session=session).id,
                created_at=dt.datetime(2020, 1, 1, 0, 30, tzinfo=dt.UTC),
            )
        )
        session.commit()
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    (row,) = [r for r in book["students"] if r["id"] == stu]
    assert row["quizzes"][LESSON]["late"] is False  # inside the grace period
    page = app_client.get(f"/instructor/students/{stu}", headers=teacher)
    assert page.status_code == 200, page.text
    quiz_part = page.text[page.text.find("Quiz attempts") :]
    assert "badge late" not in quiz_part
