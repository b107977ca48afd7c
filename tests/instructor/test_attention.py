"""Who needs help: students ranked by signals an instructor can read (issue 51)."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient

from app.db import session_factory
from app.instructor.attention import time_on_task
from app.progress.models import HintReveal, QuizAttempt
from app.users.models import Role
from tests.instructor.conftest import EXERCISE, LESSON, PAST_DUE, add_submission, at, person


def _quiz(user_id: int, score: float, when: dt.datetime) -> None:
    with session_factory()() as session:
        session.add(
            QuizAttempt(
                user_id=user_id,
                lesson_slug=LESSON,
                answers={},
                results={},
                score=score,
                created_at=when,
            )
        )
        session.commit()


def _hint(user_id: int, number: int, when: dt.datetime) -> None:
    with session_factory()() as session:
        session.add(
            HintReveal(
                user_id=user_id,
                course_slug="positional-embeddings",  # the small course is the first course
                exercise_slug=EXERCISE,
                hint_number=number,
                created_at=when,
            )
        )
        session.commit()


def _class() -> tuple[dict[str, int], dict[str, str]]:
    ann, _ = person("ann@example.org", "Ann")
    bob, _ = person("bob@example.org", "Bob")
    _, teacher = person("t@example.org", "Tea", Role.instructor)
    for minute in (0, 10, 20):
        add_submission(ann, EXERCISE, [False, False], at(1, 12, minute))
    add_submission(ann, EXERCISE, [True, False], at(2, 12, 0))  # progress: 0 -> 0.5
    for number in (1, 2, 3):
        _hint(ann, number, at(2, 12, 5))
    _quiz(ann, 0.25, at(2, 12, 30))
    add_submission(bob, EXERCISE, [True, True], at(10))
    add_submission(bob, PAST_DUE, [True, True], at(11))
    _quiz(bob, 1.0, at(11, 13))
    return {"ann": ann, "bob": bob}, teacher


def test_the_students_who_most_need_help_come_first(app_client: TestClient) -> None:
    ids, teacher = _class()
    got = app_client.get("/api/instructor/attention?now=2026-11-20T12:00:00Z", headers=teacher)
    assert got.status_code == 200, got.text
    rows = got.json()
    assert [r["user_id"] for r in rows] == [ids["ann"], ids["bob"]]
    ann, bob = rows
    assert ann["name"] == "Ann" and ann["url"] == f"/instructor/students/{ids['ann']}"
    signals = ann["signals"]
    assert signals["tries_without_solving"] == [{"exercise": EXERCISE, "tries": 4}]
    assert signals["past_due_unsolved"] == [PAST_DUE]
    assert signals["hints_opened"] == 3
    assert signals["quiz_average"] == 0.25
    assert signals["last_progress"] == at(2, 12, 30).isoformat()  # the quiz's first score
    assert signals["days_since_progress"] == 17.98
    # 12:00-12:20 on day 1, then 12:00-12:30 on day 2, each stretch with 5 minutes before it.
    assert signals["time_on_task_minutes"] == 60
    assert bob["signals"]["points"] == 0 < signals["points"]


def test_the_page_says_how_time_on_task_is_estimated(app_client: TestClient) -> None:
    ids, teacher = _class()
    page = app_client.get("/instructor/attention", headers=teacher)
    assert page.status_code == 200, page.text
    assert "a gap of more than 30 minutes" in page.text
    assert f"/instructor/students/{ids['ann']}" in page.text
    assert page.text.index("Ann") < page.text.index("Bob")


def test_students_cannot_see_who_needs_help(app_client: TestClient) -> None:
    _, student = person("stu@example.org", "Stu")
    assert app_client.get("/api/instructor/attention", headers=student).status_code == 403


def test_time_on_task_counts_stretches_of_activity() -> None:
    moments = [at(1, 9, 0), at(1, 9, 29), at(1, 10, 30), at(3, 8, 0)]
    assert time_on_task(moments) == dt.timedelta(minutes=29 + 5 + 5 + 5)
    assert time_on_task([]) == dt.timedelta(0)
