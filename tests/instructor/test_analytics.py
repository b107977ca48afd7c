"""Per-exercise analytics: counts, medians, distributions, the chart and its table."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient

from app.db import session_factory
from app.instructor.analytics import duration_text, timeline
from app.instructor.charts import submissions_chart
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.models import Role, User
from tests.instructor.conftest import EXERCISE, add_submission, at, person

ALL, HALF, NONE = [True] * 4, [True, True, False, False], [False] * 4


def _class() -> None:
    """Ada solves in 3 tries over 2 h, Bob in 2 over 24 h, Cy never; teacher's work ignored."""
    ada, _ = person("ada@example.org", "Ada")
    bob, _ = person("bob@example.org", "Bob")
    cy, _ = person("cy@example.org", "Cy")
    teacher, _ = person("t@example.org", "T", Role.instructor)
    add_submission(ada, EXERCISE, NONE, at(1, 10), misconception="one-based")
    add_submission(ada, EXERCISE, HALF, at(1, 11))
    add_submission(ada, EXERCISE, ALL, at(1, 12))
    add_submission(bob, EXERCISE, HALF, at(1, 9))
    add_submission(bob, EXERCISE, ALL, at(2, 9))
    add_submission(cy, EXERCISE, NONE, at(3, 8), misconception="one-based", late=True)
    add_submission(cy, EXERCISE, NONE, at(3, 9), misconception="<first-seq>")
    add_submission(cy, EXERCISE, NONE, at(3, 10), mode="run")
    add_submission(teacher, EXERCISE, NONE, at(3, 11))


def test_analytics_numbers(app_client: TestClient) -> None:
    _class()
    teacher = person("boss@example.org", "Boss", Role.instructor)[1]
    body = app_client.get(f"/api/instructor/exercises/{EXERCISE}/analytics", headers=teacher).json()
    assert body["attempts"] == 7 and body["students"] == 3 and body["solvers"] == 2
    assert body["solve_rate"] == 2 / 3 and body["late"] == 1
    assert body["median_attempts_to_solve"] == 2.5
    assert body["median_seconds_to_solve"] == 13 * 3600
    assert body["verdicts"] == {"wrong_answer": 5, "accepted": 2}
    assert body["misconceptions"] == [
        {"id": "one-based", "title": "Title of one-based", "count": 2},
        {"id": "<first-seq>", "title": "Title of <first-seq>", "count": 1},
    ]
    assert body["failing_tests"][:2] == [
        {"name": "test 2", "count": 5},
        {"name": "test 3", "count": 5},
    ]
    assert body["timeline"] == [
        {"start": "2026-11-01", "submissions": 4, "solving": 1},
        {"start": "2026-11-02", "submissions": 1, "solving": 1},
        {"start": "2026-11-03", "submissions": 2, "solving": 0},
    ]


def test_analytics_page_shows_numbers_chart_and_regrade_button(app_client: TestClient) -> None:
    _class()
    teacher = person("boss@example.org", "Boss", Role.instructor)[1]
    html = app_client.get(f"/instructor/exercises/{EXERCISE}", headers=teacher).text
    assert "67%" in html and "13 h" in html and "2.5" in html
    assert "<svg" in html and html.count('class="chart-bar"') == 3
    assert "Title of &lt;first-seq&gt;" in html and "<first-seq>" not in html
    assert "Wrong answer" in html and "test 2" in html
    assert f'action="/instructor/exercises/{EXERCISE}/regrade"' in html
    assert 'name="csrf_token"' in html
    index = app_client.get("/instructor/exercises", headers=teacher).text
    assert f"/instructor/exercises/{EXERCISE}" in index and "draft" in index


def test_an_exercise_without_submissions(app_client: TestClient) -> None:
    teacher = person("boss@example.org", "Boss", Role.instructor)[1]
    body = app_client.get(f"/api/instructor/exercises/{EXERCISE}/analytics", headers=teacher).json()
    assert body["attempts"] == 0 and body["solve_rate"] is None and body["timeline"] == []
    html = app_client.get(f"/instructor/exercises/{EXERCISE}", headers=teacher).text
    assert "No submissions yet." in html
    missing = app_client.get("/instructor/exercises/nope", headers=teacher)
    assert missing.status_code == 404


class _Row:
    def __init__(self, when: dt.datetime, score: float) -> None:
        self.created_at, self.score = when, score


def test_long_spans_are_drawn_per_week() -> None:
    start = dt.datetime(2026, 1, 7, tzinfo=dt.UTC)  # a Wednesday
    rows = [_Row(start, 1.0), _Row(start + dt.timedelta(days=90), 0.0)]
    buckets, bucket = timeline(rows)
    assert bucket == "week" and buckets[0][0] == dt.date(2026, 1, 5)
    assert sum(total for _, total, _ in buckets) == 2 and buckets[0][2] == 1
    assert all((b[0] - buckets[0][0]).days % 7 == 0 for b in buckets)
    svg = submissions_chart(buckets, bucket)
    assert svg.startswith("<svg") and svg.count("<rect") == 2 * len(buckets)


def test_duration_text() -> None:
    assert [duration_text(dt.timedelta(seconds=s)) for s in (5, 600, 7500, 3 * 86400 + 7200)] == [
        "5 s",
        "10 min",
        "2 h 5 min",
        "3 days 2 h",
    ]
    assert duration_text(None) == "–"


def test_each_offering_counts_only_the_work_done_in_it(app_client: TestClient) -> None:
    """One student in two offerings: each offering's analytics reads the work sent in it."""
    ada, _ = person("ada@example.org", "Ada")  # a student of the first offering
    teacher_id, teacher = person("t@example.org", "T", Role.instructor)
    with session_factory()() as session:
        first = first_offering(session=session).id
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        for user_id, role in ((ada, OfferingRole.student), (teacher_id, OfferingRole.instructor)):
            found = session.get(User, user_id)
            assert found is not None
            enroll(session=session, offering=spring, user=found, role=role)
        second = spring.id
    add_submission(ada, EXERCISE, NONE, at(1, 10), offering_id=first)
    add_submission(ada, EXERCISE, HALF, at(2, 10), offering_id=second)
    add_submission(ada, EXERCISE, ALL, at(2, 11), offering_id=second)
    url = f"/api/instructor/exercises/{EXERCISE}/analytics"
    here = app_client.get(f"/offerings/{first}{url}", headers=teacher).json()
    there = app_client.get(f"/offerings/{second}{url}", headers=teacher).json()
    assert (here["attempts"], here["students"], here["solvers"]) == (1, 1, 0)
    assert (there["attempts"], there["students"], there["solvers"]) == (2, 1, 1)
    assert app_client.get(url, headers=teacher).json()["attempts"] == 1  # old URL: the first
    summary = app_client.get(f"/offerings/{second}/instructor/exercises", headers=teacher)
    assert summary.status_code == 200
