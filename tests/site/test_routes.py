"""What a class loading the course costs the database: SQL statements per page (issue 23)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select

from app.db import get_engine, session_factory
from app.progress.models import LessonRead
from tests.users.helpers import logged_in_client

# Upper bounds per page for a signed-in student: the session, then the page's own reads.
# A student's dates (the offering's due dates, their extensions and the late policy, with the
# offering found inside it) are one union statement wherever a page shows them (issue 49).
FIRST_VISIT = {
    "/": 5,  # session; reads, quiz attempts and exercise standings; offerings; dates; notes
    # session; read state and quiz attempts; the quiz's date; SQLite: the INSERT; and, as the
    # course's midterm asks questions of both lessons and the exercise, the student's standing
    # in its exams, one statement (app/assessments/locks.py: practice held while one is open)
    "lesson": 4,
    "lesson 2": 4,
    "exercise": 4,  # session; draft; hints opened; the exercise's date; exam standing
    "/api/exercises": 2,  # session; the dates (the list itself is content)
}
AGAIN = {**FIRST_VISIT, "lesson": 3, "lesson 2": 3}  # a lesson already read writes nothing
# PostgreSQL: a lesson view is one statement, first view or not (app/progress/service.py).
ON_POSTGRESQL = {**FIRST_VISIT, "lesson": 3, "lesson 2": 3}


@pytest.fixture
def client(client_on_each_database: TestClient) -> TestClient:
    """Both databases: PostgreSQL runs a lesson view as one statement, SQLite as two."""
    return client_on_each_database


def _on_postgresql() -> bool:
    return get_engine().dialect.name == "postgresql"


@contextmanager
def statements() -> Iterator[list[str]]:
    """The SQL statements the app runs meanwhile."""
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(str(args[2]))

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _pages(client: TestClient) -> dict[str, str]:
    """The bench's five pages: home, two lessons, an exercise, the exercise list."""
    lessons = client.get("/api/lessons").json()
    exercise = next(ex for ex in client.get("/api/exercises").json() if ex["kind"] != "experiment")
    return {
        "/": "/",
        "lesson": lessons[0]["url"],
        "lesson 2": lessons[1]["url"],
        "exercise": exercise["url"],
        "/api/exercises": "/api/exercises",
    }


def _counts(client: TestClient, pages: dict[str, str]) -> dict[str, list[str]]:
    found = {}
    for name, path in pages.items():
        with statements() as seen:
            assert client.get(path).status_code == 200, path
        found[name] = seen
    return found


def test_each_page_issues_at_most_its_statements(client: TestClient) -> None:
    logged_in_client(client, "counted@example.org")
    pages = _pages(client)
    for bounds in (ON_POSTGRESQL, ON_POSTGRESQL) if _on_postgresql() else (FIRST_VISIT, AGAIN):
        counts = _counts(client, pages)
        over = {name: seen for name, seen in counts.items() if len(seen) > bounds[name]}
        assert not over, over


def test_a_first_lesson_view_records_the_read_once(client: TestClient) -> None:
    user = logged_in_client(client, "reader@example.org")
    lesson = _pages(client)["lesson"]
    with statements() as first:
        assert client.get(lesson).status_code == 200
    assert _reads(user.id) == 1
    with statements() as again:
        assert client.get(lesson).status_code == 200
    assert _reads(user.id) == 1
    if _on_postgresql():  # the page's one statement, its INSERT adding nothing the second time
        assert sum("INSERT INTO lesson_reads" in s for s in first) == 1
        assert sum("INSERT INTO lesson_reads" in s for s in again) == 1
    else:
        assert sum(s.lstrip().upper().startswith("INSERT") for s in first) == 1
        assert not any(s.lstrip().upper().startswith("INSERT") for s in again)


def _reads(user_id: int) -> int:
    with session_factory()() as session:
        found = session.scalar(
            select(func.count()).select_from(LessonRead).where(LessonRead.user_id == user_id)
        )
        return int(found or 0)
