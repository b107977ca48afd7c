"""The best score a student reads on their history page says what the gradebook counts."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient

from app.users.models import Role
from tests.instructor.conftest import PAST_DUE, add_submission, person


def test_history_best_score_is_after_the_late_penalty(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    answer = app_client.post(
        "/api/instructor/late-policy",
        json={"mode": "penalty", "percent_per_day": 10, "max_percent": 100, "grace_minutes": 0},
        headers=teacher,
    )
    assert answer.status_code == 200, answer.text
    # due 2020-01-01 00:00, handed in 1.5 days later: 2 started days, 20% off
    add_submission(
        stu, PAST_DUE, [True, True], dt.datetime(2020, 1, 2, 12, tzinfo=dt.UTC), late=True
    )
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    (row,) = [r for r in book["students"] if r["id"] == stu]
    assert row["exercises"][PAST_DUE]["best"] == pytest.approx(0.8)
    page = app_client.get(f"/exercises/{PAST_DUE}/history", headers=student)
    assert page.status_code == 200, page.text
    said = page.text[page.text.find("Best score") :][:80]
    assert "Best score: 100% (80% counts, after the late penalty)." in said, said
