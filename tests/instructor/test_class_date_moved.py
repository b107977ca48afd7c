"""An instructor moves the whole class's date past work already handed in: the student's
late mark must go, as it does for an extension, and as the gradebook already says."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient

from app.users.models import Role
from tests.instructor.conftest import PAST_DUE, person

FUTURE = (dt.datetime.now(dt.UTC) + dt.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")


def _submit(client: TestClient, headers: dict[str, str], slug: str) -> dict[str, object]:
    func = slug.replace("-", "_")
    response = client.post(
        "/api/submissions",
        json={"exercise": slug, "code": f"def {func}(x):\n    return x\n", "mode": "submit"},
        headers=headers,
    )
    assert response.status_code == 202, response.text
    body: dict[str, object] = client.get(
        f"/api/submissions/{response.json()['id']}", headers=headers
    ).json()
    return body


def test_a_class_date_moved_later_clears_the_students_late_mark(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    late = _submit(app_client, student, PAST_DUE)
    assert late["late"] is True
    moved = app_client.post(
        "/api/instructor/due-dates",
        json={"kind": "exercise", "slug": PAST_DUE, "due": FUTURE},
        headers=teacher,
    )
    assert moved.status_code == 200, moved.text
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    (row,) = [r for r in book["students"] if r["id"] == stu]
    assert row["exercises"][PAST_DUE]["late"] is False  # the gradebook: on time now
    seen = app_client.get(f"/api/submissions/{late['id']}", headers=student).json()
    assert seen["due"].startswith(FUTURE[:10])  # the student's page shows the new date...
    assert seen["late"] is False, seen  # ...and so must not call the work late
