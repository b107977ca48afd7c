"""Report a problem: students send it from an exercise or a quiz question, instructors resolve."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.db import session_factory
from app.problems.models import ProblemReport
from app.users.models import User
from tests.submissions.test_api import WRONG, wait_done
from tests.users.helpers import csrf_from, logged_in_client, make_instructor

EXERCISE = "position-embedding-gather"
LESSON = "learned-absolute"


def _form_token(page: str) -> str:
    """The csrf token of the report-a-problem form on a page."""
    part = page.split('class="report-problem-form"', 1)[1]
    match = re.search(r'name="csrf_token" value="([^"]+)"', part)
    assert match, "the page has no report-a-problem form"
    return match.group(1)


def _send(client: TestClient, page_url: str, **fields: str) -> tuple[int, str]:
    page = client.get(page_url).text
    data = {"csrf_token": _form_token(page), "next": page_url, **fields}
    response = client.post("/problems", data=data)
    return response.status_code, response.text


def _make_instructor(user: User) -> None:
    make_instructor(user.id)


def test_a_report_from_an_exercise_carries_the_latest_submission(client: TestClient) -> None:
    student = logged_in_client(client, "stu@example.org", name="Stu")
    page = client.get(f"/exercises/{EXERCISE}").text
    token = csrf_from(page)
    sid = client.post(
        "/api/submissions",
        json={"exercise": EXERCISE, "code": WRONG},
        headers={"X-CSRF-Token": token},
    ).json()["id"]
    wait_done(client, sid, {})
    status, body = _send(
        client,
        f"/exercises/{EXERCISE}",
        kind="exercise",
        slug=EXERCISE,
        message="  Test 3 expects float64 but the statement says float32.  ",
    )
    assert status == 200 and "your report reached the instructors" in body
    with session_factory()() as session:
        (row,) = session.query(ProblemReport).all()
        assert (row.user_id, row.kind, row.slug, row.submission_id) == (
            student.id,
            "exercise",
            EXERCISE,
            sid,
        )
        assert row.message == "Test 3 expects float64 but the statement says float32."
        assert row.resolved_at is None


def test_a_report_on_a_quiz_question_names_the_question(client: TestClient) -> None:
    logged_in_client(client, "stu@example.org")
    page = client.get(f"/lessons/{LESSON}").text
    assert "Report a problem with this quiz" in page
    question = re.search(r'<option value="([^"]+)">Question 1</option>', page)
    assert question
    status, _ = _send(
        client,
        f"/lessons/{LESSON}",
        kind="quiz",
        slug=LESSON,
        question=question.group(1),
        message="The two answers look the same to me.",
    )
    assert status == 200
    with session_factory()() as session:
        (row,) = session.query(ProblemReport).all()
        assert (row.kind, row.question_id, row.submission_id) == ("quiz", question.group(1), None)


def test_bad_reports_get_clear_errors_and_keep_the_text(client: TestClient) -> None:
    logged_in_client(client, "stu@example.org")
    url = f"/exercises/{EXERCISE}"
    cases = [
        ({"kind": "exercise", "slug": EXERCISE, "message": "   "}, 400, "Write a few words"),
        ({"kind": "exercise", "slug": EXERCISE, "message": "x" * 2001}, 400, "under 2000"),
        ({"kind": "exercise", "slug": "no-such", "message": "kept words"}, 404, "no exercise"),
        (
            {"kind": "quiz", "slug": LESSON, "question": "nope", "message": "kept"},
            404,
            "no question",
        ),
        ({"kind": "quiz", "slug": LESSON, "message": "kept words"}, 400, "Choose the question"),
    ]
    for fields, status, words in cases:
        got, body = _send(client, url, **fields)
        assert got == status and words in body, (fields, got)
        if fields["message"].strip() and len(fields["message"]) < 100:
            assert fields["message"] in body  # nothing the student wrote is lost
    with session_factory()() as session:
        assert session.query(ProblemReport).count() == 0


def test_without_a_session_the_text_is_kept_and_nothing_is_stored(client: TestClient) -> None:
    logged_in_client(client, "stu@example.org")
    page = client.get(f"/exercises/{EXERCISE}").text
    token = _form_token(page)
    client.cookies.clear()
    response = client.post(
        "/problems",
        data={"csrf_token": token, "kind": "exercise", "slug": EXERCISE, "message": "my words"},
    )
    assert response.status_code in (401, 403)
    if response.status_code == 401:
        assert "my words" in response.text and "Log in" in response.text


def test_only_instructors_list_and_resolve_reports(client: TestClient) -> None:
    student = logged_in_client(client, "stu@example.org", name="Stu")
    _send(client, f"/exercises/{EXERCISE}", kind="exercise", slug=EXERCISE, message="<b>odd</b>")
    assert client.get("/instructor/problems", follow_redirects=False).status_code in (403, 303)
    with session_factory()() as session:
        report_id = session.query(ProblemReport).one().id
    token = csrf_from(client.get("/").text)
    refused = client.post(
        f"/instructor/problems/{report_id}/resolve",
        data={"csrf_token": token},
        follow_redirects=False,
    )
    assert refused.status_code in (403, 303)
    _make_instructor(student)
    listing = client.get("/instructor/problems").text
    assert "&lt;b&gt;odd&lt;/b&gt;" in listing and "<b>odd</b>" not in listing  # escaped
    assert "1 open report," in listing and "Mark resolved" in listing
    token = re.search(
        r'resolve">\s*<input type="hidden" name="csrf_token" value="([^"]+)"', listing
    )
    assert token
    done = client.post(
        f"/instructor/problems/{report_id}/resolve",
        data={"csrf_token": token.group(1)},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert "No open reports" in client.get("/instructor/problems").text
    resolved = client.get("/instructor/problems?show=resolved").text
    assert "1 resolved report," in resolved and "Mark resolved" not in resolved
    missing = client.post("/instructor/problems/99999/resolve", data={"csrf_token": token.group(1)})
    assert missing.status_code == 404
