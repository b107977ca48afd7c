"""Publishing where it meets what students have: a served folder graded from, a running exam,
quiz scores under a slug, an editor saving meanwhile, a file that parses but cannot be read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.authoring import publish, service
from app.authoring.models import AuthoringDraft
from app.content.loader import _recent
from app.db import session_factory
from app.main import create_app
from tests.authoring.conftest import Authoring
from tests.authoring.course import LESSON

API = "/api/courses/tiny-course/authoring"
PATH = "lessons/first-steps.md"
BAD_DATE = LESSON.replace("order: 1\n", "order: 1\ndue: 2026-02-30T23:59:00Z\n")


def _save(a: Authoring, path: str, text: str, who: dict[str, str] | None = None) -> Any:
    who = who or a.editor
    revision = a.client.get(f"{API}/files/{path}", headers=who).json()["revision"]
    return a.client.put(f"{API}/files/{path}", json={"text": text, "base": revision}, headers=who)


def _publish(a: Authoring, message: str = "edit") -> Any:
    return a.client.post(f"{API}/publish", json={"message": message}, headers=a.editor)


def test_an_impossible_date_is_a_problem_on_its_line_and_never_reaches_the_folder(
    authoring: Authoring,
) -> None:
    a = authoring
    saved = _save(a, PATH, BAD_DATE)
    assert saved.status_code == 200, saved.text
    problems = saved.json()["check"]["problems"]
    mine = [p for p in problems if p["file"] == PATH]
    assert [p["line"] for p in mine] == [5], problems
    assert "day is out of range for month" in mine[0]["message"]
    refused = _publish(a)
    assert refused.status_code == 409, refused.text
    assert (a.folder / PATH).read_text("utf-8") == LESSON
    assert a.client.get("/authoring/tiny-course", headers=a.editor).status_code == 200


def test_a_course_file_with_an_impossible_date_on_disk_does_not_stop_a_start(
    authoring: Authoring,
) -> None:
    """Committed in git rather than in the browser: the server starts and serves the rest."""
    a = authoring
    (a.folder / "lessons" / "second.md").write_text(
        BAD_DATE.replace("slug: first-steps", "slug: second"), "utf-8"
    )
    _recent.clear()  # a new process: nothing loaded yet
    with TestClient(create_app()) as fresh:
        assert fresh.get("/lessons/first-steps", headers=a.student).status_code == 200
        assert fresh.get("/", headers=a.student).status_code == 200


def test_a_plot_block_with_an_impossible_date_is_refused_with_a_sentence(
    authoring: Authoring,
) -> None:
    a = authoring
    path = "exercises/split-heads/statement.md"
    text = (a.folder / path).read_text(
        "utf-8"
    ) + "\n```plot\nname: sinusoid\nwhen: 2026-02-30\n```\n"
    saved = _save(a, path, text)
    assert saved.status_code == 200, saved.text
    messages = [p["message"] for p in saved.json()["check"]["problems"]]
    assert any("day is out of range for month" in m for m in messages), messages


def test_a_refused_publish_never_puts_its_files_where_students_are_graded_from(
    authoring: Authoring, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = authoring
    path = "exercises/split-heads/cases.py"
    good = (a.folder / path).read_text("utf-8")
    assert not _save(a, path, good + "\ndef oops(:\n").json()["check"]["ok"]
    seen: list[str] = []
    real = publish.check_texts

    def check_and_look(folder: Path, texts: Any) -> Any:
        seen.append((a.folder / path).read_text("utf-8"))  # what a grader reads right now
        return real(folder, texts)

    monkeypatch.setattr(publish, "check_texts", check_and_look)
    assert _publish(a).status_code == 409
    assert seen == [good] and (a.folder / path).read_text("utf-8") == good


def test_a_publish_that_drops_a_question_an_open_exam_asks_is_refused(
    exam_authoring: Authoring,
) -> None:
    a = exam_authoring
    started = a.client.post("/api/assessments/quick/attempts", headers=a.student)
    assert started.status_code == 201, started.text
    saved = _save(a, PATH, LESSON.replace("id: pick-one", "id: pick-even"))
    assert saved.status_code == 200
    said = [p for p in saved.json()["check"]["problems"] if p["file"] == "assessments/quick.yaml"]
    assert said and "pick-one" in said[0]["message"], saved.json()  # the editor hears it on save
    refused = _publish(a, "rename")
    assert refused.status_code == 409, refused.text
    assert "pick-one" in refused.text
    assert (a.folder / PATH).read_text("utf-8") == LESSON
    attempt = started.json()["id"]
    assert (
        a.client.get(f"/api/assessments/attempts/{attempt}", headers=a.student).status_code == 200
    )


def test_renaming_a_lesson_whose_quiz_students_took_is_refused(authoring: Authoring) -> None:
    a = authoring
    took = a.client.post(
        "/api/lessons/first-steps/quiz", json={"answers": {"pick-one": "two"}}, headers=a.student
    )
    assert took.status_code == 200 and took.json()["score"] == 1.0
    assert (
        _save(a, PATH, LESSON.replace("slug: first-steps", "slug: first-steps-renamed")).status_code
        == 200
    )
    refused = _publish(a, "rename")
    assert refused.status_code == 409, refused.text
    assert "the lesson 'first-steps' is not in this version, but 1 student worked on it" in (
        refused.text
    )
    assert (a.folder / PATH).read_text("utf-8") == LESSON
    retitled = LESSON.replace('title: "First steps"', 'title: "The first steps"')
    assert _save(a, PATH, retitled).status_code == 200
    assert _publish(a, "title").status_code == 200  # a new title is free


def test_a_lesson_nobody_worked_on_may_be_renamed(authoring: Authoring) -> None:
    a = authoring
    second = "lessons/second.md"
    text = LESSON.replace("slug: first-steps", "slug: second").replace("order: 1", "order: 2")
    assert _save(a, second, text).status_code == 200
    assert _publish(a, "new").status_code == 200
    renamed = text.replace("slug: second", "slug: second-renamed")
    assert _save(a, second, renamed).status_code == 200
    assert _publish(a, "rename").status_code == 200, "nobody took its quiz"


def test_a_save_made_while_a_publish_runs_is_kept_as_a_draft_of_the_new_text(
    authoring: Authoring, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = authoring
    anns = LESSON.replace("Some text", "Ann's text")
    assert _save(a, PATH, anns).status_code == 200
    bobs = LESSON.replace("Some text", "Bob's better text")
    bobs_base = a.client.get(f"{API}/files/{PATH}", headers=a.admin).json()["revision"]
    real = service.apply
    answers: list[Any] = []

    def apply_while_bob_saves(**kwargs: Any) -> Any:
        answers.append(
            a.client.put(
                f"{API}/files/{PATH}", json={"text": bobs, "base": bobs_base}, headers=a.admin
            )
        )
        return real(**kwargs)

    monkeypatch.setattr(service, "apply", apply_while_bob_saves)
    assert _publish(a, "Ann").status_code == 200
    assert answers[0].status_code == 200, answers[0].text
    assert (a.folder / PATH).read_text("utf-8") == anns
    with session_factory()() as session:
        assert [d.text for d in session.query(AuthoringDraft).filter_by(path=PATH)] == [bobs]
    monkeypatch.setattr(service, "apply", real)
    assert _publish(a, "Bob").status_code == 200  # his draft builds on Ann's published text
    assert (a.folder / PATH).read_text("utf-8") == bobs
