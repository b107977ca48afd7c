"""Whether work is late must agree between the student's submission and the gradebook after
staff give a grace period or take it back: the stored late mark follows the policy."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient

from app.users.models import Role
from tests.instructor.conftest import PAST_DUE, add_submission, person

HALF_AN_HOUR_LATE = dt.datetime(2020, 1, 1, 0, 30, tzinfo=dt.UTC)  # due 2020-01-01 00:00


def _cell(client: TestClient, teacher: dict[str, str], stu: int) -> dict[str, object]:
    book = client.get("/api/instructor/gradebook", headers=teacher).json()
    (row,) = [r for r in book["students"] if r["id"] == stu]
    cell: dict[str, object] = row["exercises"][PAST_DUE]
    return cell


def _grace(client: TestClient, teacher: dict[str, str], minutes: int) -> None:
    answer = client.post(
        "/api/instructor/late-policy",
        json={"mode": "accept", "grace_minutes": minutes},
        headers=teacher,
    )
    assert answer.status_code == 200, answer.text


def test_a_grace_period_unflags_work_inside_it_for_the_student(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    sid = add_submission(stu, PAST_DUE, [True, True], HALF_AN_HOUR_LATE, late=True)
    _grace(app_client, teacher, 60)
    assert _cell(app_client, teacher, stu)["late"] is False
    seen = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert seen["late"] is False, seen
    url = f"/api/instructor/exercises/{PAST_DUE}/analytics"
    assert app_client.get(url, headers=teacher).json()["late"] == 0  # "late submissions"


def test_a_grace_period_taken_back_flags_the_work_again(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    sid = add_submission(stu, PAST_DUE, [True, True], HALF_AN_HOUR_LATE, late=True)
    _grace(app_client, teacher, 60)
    _grace(app_client, teacher, 10)  # shorter than the half hour: late again
    assert _cell(app_client, teacher, stu)["late"] is True
    seen = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert seen["late"] is True, seen


def test_the_settings_form_unflags_work_inside_a_new_grace_period(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    sid = add_submission(stu, PAST_DUE, [True, True], HALF_AN_HOUR_LATE, late=True)
    saved = app_client.post(
        "/instructor/settings/late-policy",
        data={"mode": "accept", "grace_minutes": "60"},
        headers=teacher,
        follow_redirects=False,
    )
    assert saved.status_code == 303, saved.text
    seen = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert seen["late"] is False, seen
