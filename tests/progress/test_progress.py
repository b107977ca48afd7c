"""Lesson reads are recorded once per student; quiz attempts accumulate."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import session_factory
from app.progress.models import LessonRead
from app.progress.service import (
    count_quiz_attempts,
    latest_quiz_attempt,
    lessons_read,
    quiz_attempts,
    record_lesson_read,
    save_quiz_attempt,
)
from tests.users.helpers import logged_in_client, make_user


def _reads() -> list[tuple[int, str]]:
    with session_factory()() as session:
        rows = session.execute(select(LessonRead.user_id, LessonRead.lesson_slug)).all()
        return [(int(r[0]), str(r[1])) for r in rows]


def test_opening_a_lesson_records_one_read(client: TestClient) -> None:
    client.get("/lessons/why-position")
    assert _reads() == [], "visitors are not tracked"
    user = logged_in_client(client, "grace@example.org")
    for _ in range(3):
        assert client.get("/lessons/why-position").status_code == 200
    client.get("/lessons/learned-absolute")
    assert sorted(_reads()) == [(user.id, "learned-absolute"), (user.id, "why-position")]
    client.get("/lessons/nope")
    assert len(_reads()) == 2


def test_record_lesson_read_is_idempotent(data_dir: Path) -> None:
    user = make_user("grace@example.org")
    with session_factory()() as session:
        assert record_lesson_read(session=session, user_id=user.id, lesson_slug="a") is True
        assert record_lesson_read(session=session, user_id=user.id, lesson_slug="a") is False
        assert lessons_read(session=session, user_id=user.id) == {"a"}
        count = session.scalar(select(func.count(LessonRead.id)))
        assert count == 1


def test_attempts_accumulate_newest_first(data_dir: Path) -> None:
    user = make_user("grace@example.org")
    other = make_user("ada@example.org")
    with session_factory()() as session:
        for score in (0.25, 0.5, 1.0):
            save_quiz_attempt(
                session=session,
                user_id=user.id,
                lesson_slug="quiz",
                answers={"q": str(score)},
                results={"questions": []},
                score=score,
            )
        save_quiz_attempt(
            session=session,
            user_id=other.id,
            lesson_slug="quiz",
            answers={},
            results={"questions": []},
            score=0.0,
        )
        assert count_quiz_attempts(session=session, user_id=user.id, lesson_slug="quiz") == 3
        rows = quiz_attempts(session=session, user_id=user.id, lesson_slug="quiz")
        assert [r.score for r in rows] == [1.0, 0.5, 0.25]
        latest = latest_quiz_attempt(session=session, user_id=user.id, lesson_slug="quiz")
        assert latest is not None and latest.answers == {"q": "1.0"}
        assert latest_quiz_attempt(session=session, user_id=user.id, lesson_slug="other") is None
