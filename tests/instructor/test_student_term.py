"""The student's side of a term: due dates, extensions, late marks, the score that counts, and
what staff wrote (comments, an override's reason), as the student sees them (issue 49)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db import session_factory
from app.main import create_app
from app.progress.service import save_quiz_attempt
from app.users.models import Role, User
from tests.instructor.conftest import EXERCISE, LESSON, PAST_DUE, add_submission, person
from tests.users.helpers import form_token, logged_in_client, make_instructor

LATE = dt.datetime(2020, 1, 1, 12, tzinfo=dt.UTC)  # 12 hours after PAST_DUE's due date
FUTURE = (dt.datetime.now(dt.UTC) + dt.timedelta(days=30)).replace(microsecond=0)


def _penalty(client: TestClient, teacher: dict[str, str]) -> None:
    answer = client.post(
        "/api/instructor/late-policy",
        json={"mode": "penalty", "percent_per_day": 10, "max_percent": 30},
        headers=teacher,
    )
    assert answer.status_code == 200, answer.text


def test_the_student_sees_the_due_date_and_the_policy(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    _penalty(app_client, teacher)
    listed = {e["slug"]: e for e in app_client.get("/api/exercises", headers=student).json()}
    assert listed[PAST_DUE]["due"] == "2020-01-01T00:00:00+00:00"
    assert listed[PAST_DUE]["late_policy"] == (
        "Late work loses 10% of its score per day late, at most 30%."
    )
    assert listed[EXERCISE]["due"] is None and listed[EXERCISE]["late_policy"] is None
    assert "due" not in app_client.get("/api/exercises").json()[0]  # visitors: content only

    granted = app_client.post(
        f"/api/instructor/students/{stu}/extensions",
        json={"kind": "exercise", "slug": PAST_DUE, "due": FUTURE.isoformat(), "reason": "flu"},
        headers=teacher,
    )
    assert granted.status_code in (200, 201), granted.text
    mine = {e["slug"]: e for e in app_client.get("/api/exercises", headers=student).json()}
    assert mine[PAST_DUE]["due"] == FUTURE.isoformat()
    assert mine[PAST_DUE]["extended"] is True and mine[PAST_DUE]["extension_reason"] == "flu"
    page = app_client.get(f"/exercises/{PAST_DUE}", headers=student).text
    assert f"Due {FUTURE.strftime('%Y-%m-%d %H:%M')} UTC (extended for you: flu)" in page
    assert "Late work loses 10% of its score per day late, at most 30%." in page


def test_a_late_override_shows_the_score_that_counts(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    _penalty(app_client, teacher)
    sid = add_submission(stu, PAST_DUE, [True, False], LATE, late=True)
    overridden = app_client.post(
        f"/api/instructor/submissions/{sid}/override",
        json={"score": 0.5, "reason": "Partial credit for the idea"},
        headers=teacher,
    )
    assert overridden.status_code == 200
    seen = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert seen["late"] is True and seen["score"] == 0.5
    assert seen["counted_score"] == pytest.approx(0.45)  # one day late, 10% off
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    assert book["students"][0]["exercises"][PAST_DUE]["best"] == pytest.approx(0.45)
    page = app_client.get(f"/exercises/{PAST_DUE}/results/{sid}", headers=student).text
    assert "Late: handed in after 2020-01-01 00:00 UTC; 45% counts after the late penalty." in page
    assert "Staff set this submission's score to <strong>50%</strong>" in page
    assert "Partial credit for the idea" in page
    assert "Score that counts: <strong>45%</strong>" in page


def test_comments_reach_the_student_on_a_line_and_on_the_whole(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    code = "def f(x):\n    return x * 2\n"
    sid = add_submission(stu, EXERCISE, [True, False], LATE, code=code)
    url = f"/api/instructor/submissions/{sid}/comments"
    whole = app_client.post(url, json={"text": "Nice & tidy <b>work</b>"}, headers=teacher)
    assert whole.status_code == 201 and whole.json()["line"] is None
    on_line = app_client.post(url, json={"text": "Why times two?", "line": 2}, headers=teacher)
    assert on_line.status_code == 201 and on_line.json()["by"] == "Dr Tee"
    past_end = app_client.post(url, json={"text": "x", "line": 9}, headers=teacher)
    assert past_end.status_code == 422
    assert past_end.json()["detail"] == "Line 9 is not in this code; it has lines 1 to 2."
    empty = app_client.post(url, json={"text": "  "}, headers=teacher)
    assert empty.status_code == 422
    by_student = app_client.post(url, json={"text": "I grade myself"}, headers=student)
    assert by_student.status_code == 403
    seen = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert [(c["by"], c["text"], c["line"]) for c in seen["comments"]] == [
        ("Dr Tee", "Nice & tidy <b>work</b>", None),
        ("Dr Tee", "Why times two?", 2),
    ]
    assert seen["score"] == 0.5  # a comment leaves the score alone
    page = app_client.get(f"/exercises/{EXERCISE}/results/{sid}", headers=student).text
    assert "Nice &amp; tidy &lt;b&gt;work&lt;/b&gt;" in page and "<b>work</b>" not in page
    line_two = page.split('id="L2"', 1)[1].split("</li>", 1)[0]
    assert "Why times two?" in line_two


def test_the_comment_form_on_the_staff_page(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    sid = add_submission(stu, EXERCISE, [False], LATE)
    prof = logged_in_client(app_client, "prof@example.org", name="Prof")
    make_instructor(prof.id)
    page = app_client.get(f"/instructor/students/{stu}").text
    token = form_token(page.split('class="comment-form"', 1)[1])
    bad = app_client.post(
        f"/instructor/submissions/{sid}/comments",
        data={"csrf_token": token, "text": "Look here", "line": "two"},
    )
    assert bad.status_code == 400 and "Give the line as a number" in bad.text
    saved = app_client.post(
        f"/instructor/submissions/{sid}/comments",
        data={"csrf_token": token, "text": "Look at line 1", "line": "1"},
        follow_redirects=False,
    )
    assert saved.status_code == 303
    assert "Look at line 1" in app_client.get(f"/instructor/students/{stu}").text


def test_the_home_page_lists_what_is_due_next_and_what_staff_wrote(
    app_client: TestClient,
) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    soon = (dt.datetime.now(dt.UTC) + dt.timedelta(days=2)).replace(microsecond=0)
    answer = app_client.post(
        f"/api/instructor/students/{stu}/extensions",
        json={"kind": "exercise", "slug": PAST_DUE, "due": soon.isoformat(), "reason": "flu"},
        headers=teacher,
    )
    assert answer.status_code in (200, 201), answer.text
    sid = add_submission(stu, EXERCISE, [False], LATE)
    app_client.post(
        f"/api/instructor/submissions/{sid}/comments",
        json={"text": "Check the broadcasting"},
        headers=teacher,
    )
    home = app_client.get("/", headers=student).text
    due = home.split('id="due-h"', 1)[1].split("</section>", 1)[0]
    assert f"Due {soon.strftime('%Y-%m-%d %H:%M')} UTC (extended for you: flu)" in due
    notes = home.split('id="notes-h"', 1)[1].split("</section>", 1)[0]
    assert "Check the broadcasting" in notes
    assert f'href="/exercises/{EXERCISE}/results/{sid}"' in notes
    lesson = app_client.get(f"/lessons/{LESSON}", headers=student).text
    assert "Due 2020-01-01 00:00 UTC." in lesson.split('id="quiz-due"', 1)[1]
    other = person("other@example.org", "O")[1]
    assert 'id="notes-h"' not in app_client.get("/", headers=other).text  # only to its student


def test_a_regrade_request_is_asked_once_and_answered_in_place(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    sid = add_submission(stu, EXERCISE, [True, False], LATE)
    run = add_submission(stu, EXERCISE, [True, False], LATE, mode="run")
    url = f"/api/submissions/{sid}/regrade-request"
    empty = app_client.post(url, json={"text": " "}, headers=student)
    assert empty.status_code == 422
    not_graded = app_client.post(
        f"/api/submissions/{run}/regrade-request", json={"text": "x"}, headers=student
    )
    assert not_graded.status_code == 409
    other = person("other@example.org", "O")[1]
    assert app_client.post(url, json={"text": "mine"}, headers=other).status_code == 404
    asked = app_client.post(url, json={"text": "Test 2 wants float64"}, headers=student)
    assert asked.status_code == 201 and asked.json()["answer"] is None
    again = app_client.post(url, json={"text": "please"}, headers=student)
    assert again.status_code == 409 and "already asked" in again.json()["detail"]

    queue = app_client.get("/api/instructor/regrade-requests", headers=teacher).json()
    assert [(q["student"], q["text"], q["exercise"]) for q in queue] == [
        ("Stu", "Test 2 wants float64", EXERCISE)
    ]
    assert app_client.get("/api/instructor/regrade-requests", headers=student).status_code == 403
    answered = app_client.post(
        f"/api/instructor/regrade-requests/{queue[0]['id']}/answer",
        json={"text": "You are right; full marks.", "score": 1.0},
        headers=teacher,
    )
    assert answered.status_code == 200 and answered.json()["new_score"] == 1.0
    seen = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert seen["score"] == 1.0 and seen["override"]["reason"] == "You are right; full marks."
    assert seen["regrade_request"]["answer"] == "You are right; full marks."
    assert seen["regrade_request"]["answered_by"] == "Dr Tee"
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    (row,) = [r for r in book["students"] if r["exercises"][EXERCISE]["best"] is not None]
    assert row["exercises"][EXERCISE]["best"] == 1.0
    page = app_client.get(f"/exercises/{EXERCISE}/results/{sid}", headers=student).text
    assert "Dr Tee answered" in page and "Your new score: 100%." in page
    home = app_client.get("/", headers=student).text
    assert "An answer to your regrade request" in home.split('id="notes-h"', 1)[1]


def test_the_regrade_forms(app_client: TestClient) -> None:
    stu = logged_in_client(app_client, "stu@example.org", name="Stu")
    sid = add_submission(stu.id, EXERCISE, [False], LATE)
    page = app_client.get(f"/exercises/{EXERCISE}/results/{sid}").text
    token = form_token(page.split('class="regrade-form"', 1)[1])
    sent = app_client.post(
        f"/exercises/{EXERCISE}/results/{sid}/regrade-request",
        data={"csrf_token": token, "text": "The hidden test is wrong"},
        follow_redirects=False,
    )
    assert sent.status_code == 303
    shown = app_client.get(f"/exercises/{EXERCISE}/results/{sid}").text
    assert "The hidden test is wrong" in shown and "Waiting for an answer" in shown
    prof = logged_in_client(app_client, "prof@example.org", name="Prof")
    make_instructor(prof.id)
    queue = app_client.get("/instructor/regrade-requests").text
    assert "The hidden test is wrong" in queue
    token = form_token(queue.split("/answer", 1)[1])
    request_id = queue.split('id="request-', 1)[1].split('"', 1)[0]
    bad = app_client.post(
        f"/instructor/regrade-requests/{request_id}/answer",
        data={"csrf_token": token, "text": "ok", "percent": "lots"},
    )
    assert bad.status_code == 400 and "as a percentage" in bad.text
    done = app_client.post(
        f"/instructor/regrade-requests/{request_id}/answer",
        data={"csrf_token": token, "text": "Checked: the test is right."},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert "Checked: the test is right." in app_client.get("/instructor/regrade-requests").text


def test_the_course_grade_weighs_categories_and_drops_the_lowest(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    with session_factory()() as session:
        found = session.get(User, stu)
        assert found is not None
        found.student_id = "S-1042"
        session.commit()
        save_quiz_attempt(
            session=session, user_id=stu, lesson_slug=LESSON, answers={}, results={}, score=0.5
        )
    add_submission(stu, EXERCISE, [True, True], LATE)
    add_submission(stu, PAST_DUE, [True, False], LATE)
    bad = app_client.put(
        "/api/instructor/grading-scheme", json={"weights": {"essays": 10}}, headers=teacher
    )
    assert bad.status_code == 422 and "Unknown categories: essays" in bad.json()["detail"]
    saved = app_client.put(
        "/api/instructor/grading-scheme",
        json={
            "weights": {"homework": 50, "quizzes": 50, "exams": 100},
            "drop_lowest": {"homework": 1},
        },
        headers=teacher,
    )
    assert saved.status_code == 200, saved.text
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    (row,) = [r for r in book["students"] if r["id"] == stu]
    assert row["student_id"] == "S-1042"
    # homework: 1.0 and 0.5, the lowest dropped -> 1.0; quizzes 0.5; no exams: left out
    assert row["course_grade"]["grade"] == pytest.approx(0.75)
    assert row["course_grade"]["categories"]["exams"] is None
    text = app_client.get("/instructor/gradebook.csv", headers=teacher).text
    header, *lines = (line.split(",") for line in text.splitlines())
    assert header[:4] == ["student id", "name", "email", "course grade"]
    cells = next(dict(zip(header, line, strict=True)) for line in lines if "S-1042" in line)
    assert cells["course grade"] == "0.75" and cells["homework (category mean)"] == "1"


RUBRIC = """
rubric:
  weight: 0.5
  items:
    - id: vectorised
      title: No Python loop over positions
      points: 3
    - id: names
      title: Names say what the arrays hold
      points: 1
    - id: hard-coded
      title: Hard-codes the test shapes
      points: -2
"""


@pytest.fixture
def rubric_client(course_dir: Path) -> Iterator[TestClient]:
    """The small course with a rubric on one exercise."""
    meta = course_dir / "exercises" / EXERCISE / "exercise.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + RUBRIC, encoding="utf-8")
    with TestClient(create_app()) as client:
        yield client


def test_grading_by_rubric_combines_with_the_tests_and_moves_on(
    rubric_client: TestClient,
) -> None:
    client = rubric_client
    ann, ann_h = person("ann@example.org", "Ann")
    bob, bob_h = person("bob@example.org", "Bob")
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    first = add_submission(ann, EXERCISE, [True, True], LATE)
    second = add_submission(bob, EXERCISE, [True, False], LATE)
    waiting = client.get(f"/api/submissions/{first}", headers=ann_h).json()["rubric"]
    assert waiting["graded"] is False and waiting["weight"] == 0.5
    page = client.get(f"/exercises/{EXERCISE}/results/{first}", headers=ann_h).text
    assert "A person has not graded this part yet" in page

    url = f"/api/instructor/submissions/{first}/rubric"
    unknown = client.post(url, json={"applied": ["essay"]}, headers=teacher)
    assert unknown.status_code == 422 and "no item 'essay'" in unknown.json()["detail"]
    assert client.post(url, json={"applied": []}, headers=ann_h).status_code == 403
    graded = client.post(
        url,
        json={"applied": ["vectorised", "hard-coded"], "comment": "Fix the shapes"},
        headers=teacher,
    )
    # rubric: (3 - 2) / 4 = 0.25; tests 1.0; half each: 0.625
    assert graded.status_code == 200, graded.text
    assert graded.json() == {"manual_score": 0.25, "score": 0.625}
    seen = client.get(f"/api/submissions/{first}", headers=ann_h).json()
    assert seen["score"] == 0.625 and seen["rubric"]["comment"] == "Fix the shapes"
    assert [i["applied"] for i in seen["rubric"]["items"]] == [True, False, True]
    book = client.get("/api/instructor/gradebook", headers=teacher).json()
    (ann_row,) = [r for r in book["students"] if r["id"] == ann]
    assert ann_row["exercises"][EXERCISE]["best"] == 0.625
    shown = client.get(f"/exercises/{EXERCISE}/results/{first}", headers=ann_h).text
    assert "Dr Tee gave the rubric part <strong>25%</strong>" in shown

    prof = logged_in_client(client, "prof@example.org", name="Prof")
    make_instructor(prof.id)
    opened = client.get(f"/instructor/exercises/{EXERCISE}/grading")  # the next ungraded: Bob's
    assert opened.url.path.endswith(f"/grading/{second}")
    token = form_token(opened.text.split('class="rubric-form"', 1)[1])
    saved = client.post(
        f"/instructor/submissions/{second}/rubric",
        data={"csrf_token": token, "item": ["vectorised", "names"], "comment": ""},
    )
    assert saved.status_code == 200 and "Nothing left to grade by hand" in saved.text
    assert client.get(f"/api/submissions/{second}", headers=bob_h).json()["score"] == 0.75
