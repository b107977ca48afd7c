"""The course list and each course's pages, APIs, submissions and quiz attempts."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.progress.models import QuizAttempt
from app.submissions.models import Submission
from tests.courses.helpers import ATTENTION
from tests.submissions.test_api import wait_done
from tests.users.helpers import form_token, logged_in_client, make_instructor

FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
BASE = f"/courses/{SECOND}"
SPLIT = (ATTENTION / "exercises/split-heads/solutions/numpy.py").read_text("utf-8")


def test_the_api_lists_both_courses_first_course_first(client: TestClient) -> None:
    courses = client.get("/api/courses").json()
    assert [c["slug"] for c in courses] == [FIRST, SECOND]
    first, second = courses
    assert first["url"] == "/" and second["url"] == BASE
    assert second["title"] == "Attention, step by step"
    assert second["lessons"] == len(list((ATTENTION / "lessons").glob("*.md")))
    assert second["exercises"] == len(list((ATTENTION / "exercises").glob("*/exercise.yaml")))
    assert first["lessons"] == len(client.get("/api/lessons").json())
    assert "folder" not in first  # folders and problems are for instructors


def test_a_course_lists_its_lessons_and_exercises_in_the_usual_shapes(
    client: TestClient,
) -> None:
    lessons = client.get(f"/api/courses/{SECOND}/lessons").json()
    exercises = client.get(f"/api/courses/{SECOND}/exercises").json()
    assert set(lessons[0]) == set(client.get("/api/lessons").json()[0])
    assert set(exercises[0]) == set(client.get("/api/exercises").json()[0])
    assert all(item["url"].startswith(f"{BASE}/lessons/") for item in lessons)
    assert {e["slug"] for e in exercises} >= {"split-heads", "merge-heads"}
    assert client.get(f"/api/courses/{FIRST}/lessons").json() == client.get("/api/lessons").json()
    missing = client.get("/api/courses/nope/lessons")
    assert missing.status_code == 404 and SECOND in missing.json()["detail"]


def test_the_second_course_pages_open_and_link_inside_it(client: TestClient) -> None:
    lesson = client.get(f"/api/courses/{SECOND}/lessons").json()[0]
    page = client.get(lesson["url"])
    assert page.status_code == 200 and lesson["title"] in page.text
    assert 'data-course-base="/courses/attention-step-by-step"' in page.text
    links = re.findall(r'href="(/(?:lessons|exercises)/[^"]*)"', page.text)
    assert links == [], links  # every lesson and exercise link stays in the course
    exercise = client.get(f"{BASE}/exercises/split-heads")
    assert exercise.status_code == 200 and f'action="{BASE}/exercises/split-heads/submit"' in (
        exercise.text
    )
    home = client.get(BASE)
    assert home.status_code == 200 and f'href="{BASE}/lessons/' in home.text
    assert client.get("/exercises/split-heads").status_code == 404  # old URLs: the first course
    assert client.get(f"{BASE}/login").status_code == 404  # only course routes
    assert client.get(f"{BASE}/instructor/gradebook").status_code == 401  # staff's too (issue 47)


def test_a_submission_names_its_course_and_is_graded_in_that_folder(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    body: dict[str, Any] = {"exercise": "split-heads", "code": SPLIT, "framework": "numpy"}
    assert client.post("/api/submissions", json=body, headers=student_headers).status_code == 404
    sent = client.post("/api/submissions", json={**body, "course": SECOND}, headers=student_headers)
    assert sent.status_code == 202, sent.text
    report = wait_done(client, sent.json()["id"], student_headers)
    assert report["verdict"] == "accepted", report["message"]
    assert (report["course"], report["content_version"]) == (
        SECOND,
        client.get("/api/courses").json()[1]["version"],
    )
    version = report["content_version"]
    with session_factory()() as session:
        row = session.get(Submission, sent.json()["id"])
        assert row is not None
        assert (row.course_slug, row.content_version) == (SECOND, version)
    unknown = client.post(
        "/api/submissions", json={**body, "course": "nope"}, headers=student_headers
    )
    assert unknown.status_code == 404


def test_a_submission_through_the_course_prefix_and_the_first_course_default(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    body = {"exercise": "split-heads", "code": SPLIT, "framework": "numpy", "mode": "run"}
    sent = client.post(f"{BASE}/api/submissions", json=body, headers=student_headers)
    assert sent.status_code == 202, sent.text
    first = client.post(
        "/api/submissions",
        json={"exercise": "sinusoidal-positional-encoding", "code": "x = 1", "mode": "run"},
        headers=student_headers,
    )
    with session_factory()() as session:
        rows = {r.id: r for r in session.scalars(select(Submission))}
    assert rows[sent.json()["id"]].course_slug == SECOND
    assert rows[first.json()["id"]].course_slug == FIRST
    assert rows[first.json()["id"]].content_version  # the first course's version is recorded


def test_a_quiz_attempt_records_its_course_and_version(client: TestClient) -> None:
    logged_in_client(client, "quiz@example.org")
    lesson = client.get(f"/api/courses/{SECOND}/lessons").json()[0]
    page = client.get(lesson["url"])
    action = re.search(r'class="quiz-form" method="post" action="([^"]+)"', page.text)
    assert action is not None and action.group(1).startswith(f"{BASE}/lessons/")
    posted = client.post(
        action.group(1), data={"csrf_token": form_token(page.text)}, follow_redirects=False
    )
    assert posted.status_code == 303
    assert posted.headers["location"].startswith(f"{BASE}/lessons/")
    with session_factory()() as session:
        attempt = session.scalars(select(QuizAttempt)).one()
    assert attempt.course_slug == SECOND and attempt.content_version


def test_the_admin_page_is_for_instructors_and_refreshes_with_a_token(
    client: TestClient, student_headers: dict[str, str], instructor_headers: dict[str, str]
) -> None:
    assert client.get("/admin/courses", headers=student_headers).status_code == 403
    page = client.get("/admin/courses", headers=instructor_headers)  # of the first course
    assert page.status_code == 200
    assert f'id="course-{FIRST}"' in page.text and "Version" in page.text
    refresh = client.post(f"/api/courses/{FIRST}/refresh", headers=instructor_headers)
    assert refresh.status_code == 200 and refresh.json()["applied"] is True
    assert client.post(f"/api/courses/{FIRST}/refresh", headers=student_headers).status_code == 403
    assert client.post("/api/courses/nope/refresh", headers=instructor_headers).status_code == 404


def test_the_refresh_button_needs_the_form_token(client: TestClient) -> None:
    teacher = logged_in_client(client, "teacher2@example.org")
    make_instructor(teacher.id)  # of the first offering
    page = client.get("/admin/courses")
    action = f"/admin/courses/{FIRST}/refresh"
    assert f'action="{action}"' in page.text
    refused = client.post(action, data={"csrf_token": "x.y"}, follow_redirects=False)
    assert refused.status_code == 403
    done = client.post(action, data={"csrf_token": form_token(page.text)}, follow_redirects=False)
    assert done.status_code == 303 and "applied" in done.headers["location"]
    assert f"{FIRST} was refreshed" in client.get(done.headers["location"]).text
