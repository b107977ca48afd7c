"""Due dates: late work is accepted and flagged; an extension covers it, removing one does not."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient

from app.db import session_factory
from app.progress.service import save_quiz_attempt
from app.users.models import Role
from tests.instructor.conftest import EXERCISE, LESSON, PAST_DUE, person

FUTURE = (dt.datetime.now(dt.UTC) + dt.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")


def _submit(client: TestClient, headers: dict[str, str], slug: str) -> dict[str, object]:
    func = slug.replace("-", "_")
    response = client.post(
        "/api/submissions",
        json={"exercise": slug, "code": f"def {func}(x):\n    return x\n", "mode": "run"},
        headers=headers,
    )
    assert response.status_code == 202, response.text
    body: dict[str, object] = client.get(
        f"/api/submissions/{response.json()['id']}", headers=headers
    ).json()
    return body


def test_late_flag_and_extensions(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    on_time = _submit(app_client, student, EXERCISE)
    late = _submit(app_client, student, PAST_DUE)
    assert on_time["late"] is False and late["late"] is True

    grant = app_client.post(
        f"/api/instructor/students/{stu}/extensions",
        json={"kind": "exercise", "slug": PAST_DUE, "due": FUTURE, "reason": "ill"},
        headers=teacher,
    )
    assert grant.status_code == 200, grant.text
    covered = _submit(app_client, student, PAST_DUE)
    assert covered["late"] is False
    earlier = app_client.get(f"/api/submissions/{late['id']}", headers=student).json()
    assert earlier["late"] is False  # the extension covers work already handed in

    page = app_client.get(f"/instructor/students/{stu}", headers=teacher).text
    assert "ill" in page and "Remove extension" in page
    extension_id = grant.json()["id"]
    removed = app_client.post(
        f"/instructor/students/{stu}/extensions/{extension_id}/delete",
        headers=teacher,
        follow_redirects=False,
    )
    assert removed.status_code == 303
    again = app_client.get(f"/api/submissions/{late['id']}", headers=student).json()
    assert again["late"] is True


def test_extensions_are_checked(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    url = f"/api/instructor/students/{stu}/extensions"
    cases = [
        ({"kind": "exercise", "slug": EXERCISE, "due": FUTURE}, "has no due date"),
        ({"kind": "exercise", "slug": "nope", "due": FUTURE}, "no exercise called"),
        ({"kind": "essay", "slug": EXERCISE, "due": FUTURE}, "'exercise' or a 'quiz'"),
        ({"kind": "exercise", "slug": PAST_DUE, "due": "soon"}, "is not a date"),
    ]
    for body, message in cases:
        response = app_client.post(url, json=body, headers=teacher)
        assert response.status_code == 422 and message in response.json()["detail"], body
    assert (
        app_client.post(
            "/api/instructor/students/999/extensions",
            json={"kind": "quiz", "slug": LESSON, "due": FUTURE},
            headers=teacher,
        ).status_code
        == 404
    )


def test_quiz_attempts_after_the_due_date_are_flagged(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    other, _ = person("oth@example.org", "Oth")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    with session_factory()() as session:
        for user in (stu, other):
            save_quiz_attempt(
                session=session,
                user_id=user,
                lesson_slug=LESSON,
                answers={"table-params": "8192"},
                results={"questions": [{"prompt": "How many?", "answer": "8192", "correct": True}]},
                score=1.0,
            )
    grant = app_client.post(
        f"/api/instructor/students/{other}/extensions",
        json={"kind": "quiz", "slug": LESSON, "due": FUTURE},
        headers=teacher,
    )
    assert grant.status_code == 200
    rows = {
        r["id"]: r
        for r in app_client.get("/api/instructor/gradebook", headers=teacher).json()["students"]
    }
    assert rows[stu]["quizzes"][LESSON]["late"] is True
    assert rows[other]["quizzes"][LESSON]["late"] is False
    page = app_client.get(f"/instructor/students/{stu}", headers=teacher).text
    assert "How many?" in page and "8192" in page and "late</span>" in page
