"""What a class loading the course costs the database: SQL statements per page (issue 23)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

from app.db import get_engine
from tests.users.helpers import logged_in_client

# Upper bounds per page for a signed-in student: the session, then the page's own reads.
FIRST_VISIT = {
    "/": 4,  # session; reads and quiz attempts; exercise standings; offerings
    "lesson": 3,  # session; read state and quiz attempts; the first read's INSERT
    "lesson 2": 3,
    "exercise": 3,  # session; draft; hints opened
    "/api/exercises": 1,  # session only: the list is content
}
AGAIN = {**FIRST_VISIT, "lesson": 2, "lesson 2": 2}  # a lesson already read writes nothing


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
    for bounds in (FIRST_VISIT, AGAIN):
        counts = _counts(client, pages)
        over = {name: seen for name, seen in counts.items() if len(seen) > bounds[name]}
        assert not over, over


def test_a_first_lesson_view_records_the_read_once(client: TestClient) -> None:
    logged_in_client(client, "reader@example.org")
    lesson = _pages(client)["lesson"]
    with statements() as first:
        client.get(lesson)
    with statements() as again:
        client.get(lesson)
    assert sum(s.lstrip().upper().startswith("INSERT") for s in first) == 1
    assert not any(s.lstrip().upper().startswith("INSERT") for s in again)
