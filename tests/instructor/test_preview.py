"""Drafts: instructors preview them from the content page; students cannot see or submit them."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.courses.service import reload_course
from app.users.models import Role
from tests.instructor.conftest import DRAFT, LESSON, person


def test_drafts_are_listed_for_preview_and_hidden_from_students(
    app_client: TestClient, course_dir: Path
) -> None:
    lesson = next((course_dir / "lessons").glob(f"*-{LESSON}.md"))
    lesson.write_text(lesson.read_text().replace("draft: false", "draft: true"))
    reload_course(request_app=app_client.app)  # what the content watcher does on a change
    _, student = person("stu@example.org", "Stu")
    _, teacher = person("t@example.org", "T", Role.instructor)
    content = app_client.get("/instructor/content", headers=teacher).text
    assert f'href="/exercises/{DRAFT}"' in content and f'href="/lessons/{LESSON}"' in content
    for url in (f"/exercises/{DRAFT}", f"/lessons/{LESSON}"):
        assert app_client.get(url, headers=teacher).status_code == 200
        assert app_client.get(url, headers=student).status_code == 404
    slugs = [e["slug"] for e in app_client.get("/api/exercises", headers=student).json()]
    assert DRAFT not in slugs
    refused = app_client.post(
        "/api/submissions", json={"exercise": DRAFT, "code": "x = 1\n"}, headers=student
    )
    assert refused.status_code == 404
