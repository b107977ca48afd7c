"""A running server serves a course added, and applies a refresh asked for, by another process."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.courses import store
from app.db import session_factory
from tests.courses.helpers import tiny_course


def test_an_added_course_and_a_refresh_are_picked_up(client: TestClient, tmp_path: Path) -> None:
    watcher = client.app.state.course_watcher  # type: ignore[attr-defined]
    folder = tiny_course(tmp_path / "tiny", "tiny-course", "Tiny course")
    with session_factory()() as session:
        store.add_folder(session, slug="tiny-course", folder=folder)
    assert "tiny-course" in watcher.check()
    courses = client.get("/api/courses").json()
    assert courses[-1]["slug"] == "tiny-course" and courses[-1]["lessons"] == 1
    assert client.get(courses[-1]["url"]).status_code == 200
    assert watcher.check() == []  # nothing new since
    lesson = next((folder / "lessons").glob("*.md"))
    lesson.write_text(lesson.read_text("utf-8") + "\nA new paragraph.\n", "utf-8")
    before = courses[-1]["version"]
    with session_factory()() as session:
        store.request_refresh(session, slug="tiny-course")
    assert watcher.check() == ["tiny-course"]
    assert client.get("/api/courses").json()[-1]["version"] != before


def test_a_refresh_this_process_applied_itself_is_not_applied_again(
    client: TestClient, tmp_path: Path
) -> None:
    """The refresh button marks the time it asked, and tells its own watcher: the watcher's next
    look compares that with the stored mark (SQLite hands times back without a zone)."""
    watcher = client.app.state.course_watcher  # type: ignore[attr-defined]
    folder = tiny_course(tmp_path / "tiny", "tiny-course", "Tiny course")
    with session_factory()() as session:
        store.add_folder(session, slug="tiny-course", folder=folder)
    assert watcher.check() == ["tiny-course"]
    with session_factory()() as session:
        at = store.request_refresh(session, slug="tiny-course")
    watcher.seen("tiny-course", at)  # what `refresh_here` does after refreshing here
    assert watcher.check() == []
