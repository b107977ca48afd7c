"""The course home shows each student where they stand, and visitors a plain outline."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.content.service import load_from_settings
from app.db import get_engine
from tests.progress.helpers import add_quiz, add_read, add_submission, at
from tests.users.helpers import logged_in_client


@pytest.fixture
def client(client_on_each_database: TestClient) -> TestClient:
    """The home page on both databases: its one progress query is a union the two type alike."""
    return client_on_each_database


def _published() -> tuple[int, int]:
    """How many lessons and exercises students see (the course grows; the test follows it)."""
    course = load_from_settings()
    lessons = [x for x in course.lessons if not x.meta.draft]
    exercises = [x for x in course.exercises if not x.meta.draft]
    return len(lessons), len(exercises)


def _item(html: str, href: str) -> str:
    """The outline <li> whose title links to href."""
    match = re.search(rf'<li[^>]*>\s*<a href="{re.escape(href)}">.*?</li>', html, re.S)
    assert match, f"no outline item links to {href}"
    return match.group(0)


def _continue_href(html: str) -> str:
    match = re.search(r'<a class="button" href="([^"]+)">Continue where you left off</a>', html)
    assert match, "the page has no 'Continue where you left off' link"
    return match.group(1)


@contextmanager
def count_queries() -> Iterator[list[str]]:
    """Collect the SQL statements the app runs meanwhile."""
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(str(args[2]))

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _page_reads(statements: list[str]) -> list[str]:
    """The page's own statements, without the session lookup."""
    return [q for q in statements if "web_sessions" not in q]


def test_visitor_sees_outline_and_a_signup_prompt(client: TestClient) -> None:
    html = client.get("/").text
    assert 'href="/signup?next=/"' in html
    assert "Keep track of your work" in html
    assert "Your progress" not in html
    assert "<progress" not in html
    assert "Quiz: 6 questions" in _item(html, "/lessons/why-position")
    assert "Not started" not in html


def test_student_sees_reads_quiz_scores_and_exercise_states(client: TestClient) -> None:
    user = logged_in_client(client, "grace@example.org")
    add_read(user.id, "why-position", at(0))
    add_quiz(user.id, "why-position", [True, True, True, False, False, False], at(1))
    add_quiz(user.id, "why-position", [True, True, True, True, True, False], at(2))
    add_quiz(user.id, "why-position", [True, True, True, True, False, False], at(3))
    add_submission(user.id, "position-embedding-gather", verdict="wrong_answer", created=at(4))
    add_submission(user.id, "position-embedding-gather", created=at(5))
    add_submission(user.id, "sinusoidal-positional-encoding", verdict="wrong_answer", created=at(6))
    add_submission(user.id, "rope-rotate", mode="run", created=at(7))
    add_submission(user.id, "sinusoidal-positional-encoding", mode="run", created=at(8))
    html = client.get("/").text

    lessons, exercises = _published()
    assert f"1 of {lessons} lessons read, 1 of {exercises} exercises solved" in " ".join(
        html.split()
    )
    total = lessons + exercises
    assert re.search(rf'<progress class="course-progress" max="{total}" value="2"', html)
    first = _item(html, "/lessons/why-position")
    assert "Read</span>" in first
    assert "Quiz 5/6 (best of 3 attempts; latest 4/6)" in " ".join(first.split())
    second = _item(html, "/lessons/sinusoidal-encodings")
    assert "Not read yet" in second and "not taken yet" in second

    solved = _item(html, "/exercises/position-embedding-gather")
    assert "state-solved" in solved and "best score 100%" in solved
    assert 'href="/exercises/position-embedding-gather/history">2 submissions' in solved
    assert 'href="/exercises/position-embedding-gather/solution"' in solved
    tried = _item(html, "/exercises/sinusoidal-positional-encoding")
    assert "state-attempted" in tried and "best score 50%" in tried
    assert "/solution" not in tried
    # A run that passed every visible test is not a solve, and has no submit score.
    run_only = _item(html, "/exercises/rope-rotate")
    assert "state-attempted" in run_only and "run only, not submitted yet" in run_only
    untouched = _item(html, "/exercises/alibi-bias")
    assert "Not started" in untouched and "best score" not in untouched
    # The latest activity is unsolved work on the sinusoidal exercise: go back to it.
    assert _continue_href(html) == "/exercises/sinusoidal-positional-encoding"


def test_continue_moves_on_after_a_solve(client: TestClient) -> None:
    user = logged_in_client(client, "grace@example.org")
    add_read(user.id, "why-position", at(0))
    add_submission(user.id, "position-embedding-gather", verdict="wrong_answer", created=at(1))
    add_submission(user.id, "sinusoidal-positional-encoding", created=at(2))
    html = client.get("/").text
    # Course order puts each lesson's exercises after it; the next unfinished item after the
    # sinusoidal exercise is the lesson on learned tables.
    assert _continue_href(html) == "/lessons/learned-absolute"
    add_read(user.id, "learned-absolute", at(3))
    assert _continue_href(client.get("/").text) == "/exercises/position-embedding-gather"


def test_a_new_student_is_told_where_to_start(client: TestClient) -> None:
    logged_in_client(client, "grace@example.org")
    html = client.get("/").text
    lessons, exercises = _published()
    assert f"0 of {lessons} lessons read, 0 of {exercises} exercises solved" in " ".join(
        html.split()
    )
    assert _continue_href(html) == "/lessons/why-position"
    assert "Start here" in html


def test_home_queries_do_not_grow_with_the_work_done(client: TestClient) -> None:
    user = logged_in_client(client, "grace@example.org")
    add_read(user.id, "why-position")
    add_quiz(user.id, "why-position", [True, False])
    add_submission(user.id, "rope-rotate")
    with count_queries() as few:
        assert client.get("/").status_code == 200
    lessons = ["sinusoidal-encodings", "learned-absolute", "adding-positions", "implementing"]
    for minute, slug in enumerate(lessons):
        add_read(user.id, slug, at(minute))
        add_quiz(user.id, slug, [True, True, False], at(minute))
    exercises = ["alibi-bias", "position-embedding-gather", "token-plus-position-embedding"]
    for minute, slug in enumerate(exercises * 3):
        add_submission(user.id, slug, verdict="wrong_answer", created=at(10 + minute))
    with count_queries() as many:
        assert client.get("/").status_code == 200
    # The session's own lookup may be remembered between the two (app/users/session_cache.py).
    assert len(_page_reads(many)) == len(_page_reads(few))
    progress_queries = [
        q for q in many if any(t in q for t in ("lesson_reads", "quiz_attempts", "submissions"))
    ]
    assert len(progress_queries) <= 4, progress_queries
