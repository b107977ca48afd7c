"""Manual score overrides: checked, recorded, used as the score, and shown to the student."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.instructor.models import ScoreOverride
from app.users.models import Role
from tests.instructor.conftest import EXERCISE, add_submission, at, person
from tests.users.helpers import form_token, logged_in_client, make_instructor


def test_override_is_recorded_and_shown_to_the_student(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher_id, teacher = person("t@example.org", "T", Role.instructor)
    sid = add_submission(stu, EXERCISE, [True, False], at(1))
    plain = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert plain["override"] is None and plain["score"] == 0.5
    response = app_client.post(
        f"/api/instructor/submissions/{sid}/override",
        json={"score": 0.9, "reason": "The failing test had a typo"},
        headers=teacher,
    )
    assert response.status_code == 200 and response.json()["score"] == 0.9
    seen = app_client.get(f"/api/submissions/{sid}", headers=student).json()
    assert seen["score"] == 0.9 and seen["verdict"] == "wrong_answer"
    assert seen["override"]["score"] == 0.9
    assert seen["override"]["reason"] == "The failing test had a typo"
    assert seen["override"]["graded_score"] == 0.5 and seen["override"]["at"]
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    assert book["students"][0]["exercises"][EXERCISE]["best"] == 0.9

    removed = app_client.post(
        f"/api/instructor/submissions/{sid}/override", json={"score": None}, headers=teacher
    )
    assert removed.status_code == 200 and removed.json()["override"] is None
    assert app_client.get(f"/api/submissions/{sid}", headers=student).json()["score"] == 0.5
    with session_factory()() as session:
        log = session.scalars(select(ScoreOverride).where(ScoreOverride.submission_id == sid))
        assert [(o.score, o.reason, o.instructor_id) for o in log] == [
            (0.9, "The failing test had a typo", teacher_id),
            (None, "", teacher_id),
        ]


def test_bad_overrides_are_refused_with_a_reason(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    sid = add_submission(stu, EXERCISE, [False], at(1))
    url = f"/api/instructor/submissions/{sid}/override"
    no_reason = app_client.post(url, json={"score": 1.0, "reason": "  "}, headers=teacher)
    assert no_reason.status_code == 422 and "Give a reason" in no_reason.json()["detail"]
    too_big = app_client.post(url, json={"score": 1.5, "reason": "x"}, headers=teacher)
    assert too_big.status_code == 422 and "between 0 and 1" in too_big.json()["detail"]
    missing = app_client.post(
        "/api/instructor/submissions/999/override",
        json={"score": 1, "reason": "x"},
        headers=teacher,
    )
    assert missing.status_code == 404


def test_the_override_form_on_the_student_page(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "<i>Stu</i>")
    sid = add_submission(stu, EXERCISE, [False, False], at(1), code="print('<script>')\n")
    prof = logged_in_client(app_client, "prof@example.org", name="Prof")
    make_instructor(prof.id)
    page = app_client.get(f"/instructor/students/{stu}").text
    assert "&lt;i&gt;Stu&lt;/i&gt;" in page and "<i>Stu</i>" not in page
    assert "print(&#39;&lt;script&gt;&#39;)" in page
    token = form_token(page.split('class="override-form"', 1)[1])
    bad = app_client.post(
        f"/instructor/submissions/{sid}/override",
        data={"csrf_token": token, "percent": "eighty", "reason": "r"},
    )
    assert bad.status_code == 400 and "as a percentage" in bad.text
    saved = app_client.post(
        f"/instructor/submissions/{sid}/override",
        data={"csrf_token": token, "percent": "80", "reason": "Partial credit <ok>"},
        follow_redirects=False,
    )
    assert saved.status_code == 303 and "saved=override" in saved.headers["location"]
    after = app_client.get(saved.headers["location"]).text
    assert "override 80%" in after and "Partial credit &lt;ok&gt;" in after
    assert "The score override is saved" in after


def test_another_courses_self_study_is_not_this_offerings_to_grade(app_client: TestClient) -> None:
    """Work in another course that counts in no offering (self-study there): the first course's
    first offering took rows with no offering as its own, whatever their course."""
    from app.submissions.models import Submission

    stu, _ = person("stu@example.org", "Stu")
    _, teacher = person("t@example.org", "T", Role.instructor)
    sid = add_submission(stu, EXERCISE, [True, False], at(1))
    with session_factory()() as session:
        row = session.get(Submission, sid)
        assert row is not None
        row.course_slug, row.offering_id = "attention", None
        session.commit()
    sends = (("override", {"score": 1.0, "reason": "Typo"}), ("comments", {"text": "Ok"}))
    for part, body in sends:
        sent = app_client.post(
            f"/api/instructor/submissions/{sid}/{part}", json=body, headers=teacher
        )
        assert sent.status_code == 404, (part, sent.text)
    with session_factory()() as session:
        row = session.get(Submission, sid)
        assert row is not None and row.override_score is None
