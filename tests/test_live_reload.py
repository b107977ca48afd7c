"""`serve --reload`: a changed lesson or exercise is picked up without restarting the server."""

from __future__ import annotations

import importlib
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.cli.server import serve_options
from app.config import get_settings
from app.grading.service import get_grader
from app.live_reload import ContentWatcher, exercise_slugs, with_content_watcher
from app.main import create_app
from tests.instructor import conftest as instructor_conftest
from tests.instructor.conftest import EXERCISE, LESSON

course_dir = instructor_conftest.course_dir  # the instructors' course folder fixture


def test_watcher_reports_changed_added_and_removed_files(tmp_path: Path) -> None:
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    first = lessons / "01-a.md"
    first.write_text("one")
    (lessons / "notes.txt").write_text("ignored")
    seen: list[list[Path]] = []
    watcher = ContentWatcher([lessons, tmp_path / "missing"], seen.append)
    assert watcher.check() == [] and seen == []
    first.write_text("one, longer")
    second = lessons / "02-b.md"
    second.write_text("two")
    (lessons / "notes.txt").write_text("still ignored, but longer")
    assert watcher.check() == [first, second]
    second.unlink()
    assert watcher.check() == [second]
    assert seen == [[first, second], [second]]


def test_changed_files_name_their_exercise(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    changed = [root / "a" / "cases.py", root / "b" / "starter" / "numpy.py", tmp_path / "x.md"]
    assert exercise_slugs(changed, root) == {"a", "b"}


def test_a_changed_lesson_shows_on_the_next_request(course_dir: Path) -> None:
    lesson = next((course_dir / "lessons").glob(f"*-{LESSON}.md"))
    app = with_content_watcher(create_app(), interval=0.05)
    with TestClient(app) as client:
        assert "Table cost" in client.get(f"/lessons/{LESSON}").text
        lesson.write_text(lesson.read_text().replace('"Table cost"', '"Cost of a table"'))
        deadline = time.monotonic() + 10
        while "Cost of a table" not in client.get(f"/lessons/{LESSON}").text:
            assert time.monotonic() < deadline, "the change was not picked up"
            time.sleep(0.05)


def test_changed_tests_reach_the_running_grader(course_dir: Path) -> None:
    app = with_content_watcher(create_app(), interval=60)
    with TestClient(app):
        watcher = app.state.content_watcher
        fixed = lambda: [c for c in get_grader().spec(EXERCISE).cases if not c.generated]  # noqa: E731
        assert len(fixed()) == 5
        cases = course_dir / "exercises" / EXERCISE / "cases.py"
        text = cases.read_text()
        cases.write_text(
            text.replace('        _case("d_model of 1", True, features(2, 5, 1)),\n', "")
        )
        assert cases in watcher.check()
        assert len(fixed()) == 4


def test_serve_reload_runs_the_watching_app() -> None:
    options = serve_options(reload=True)
    module, _, name = options["app"].partition(":")
    factory = getattr(importlib.import_module(module), name)
    assert options["factory"] and options["reload"] and callable(factory)
    assert all(Path(d).is_dir() for d in options["reload_dirs"])
    assert serve_options(reload=False)["app"] == "app.main:create_app"


def test_the_access_log_is_an_operator_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off by default (a line per request cost about 8% of a page under load); on by setting."""
    assert serve_options(reload=False)["access_log"] is False
    monkeypatch.setenv("WEB_ACCESS_LOG", "true")
    get_settings.cache_clear()
    try:
        assert serve_options(reload=False)["access_log"] is True
    finally:
        get_settings.cache_clear()
