"""One student's page (full reports, hidden tests included) and changing roles."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.users.models import Role, User
from tests.instructor.conftest import EXERCISE, add_submission, at, person
from tests.users.helpers import form_token, logged_in_client, make_instructor


def _instructor_browser(client: TestClient) -> User:
    prof = logged_in_client(client, "prof@example.org", name="Prof")
    make_instructor(prof.id)
    return prof


def test_student_page_shows_code_and_hidden_tests(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    add_submission(stu, EXERCISE, [True, True, False], at(1), code="SECRET_CODE = 1\n")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    page = app_client.get(f"/instructor/students/{stu}", headers=teacher).text
    assert "SECRET_CODE = 1" in page
    assert "test 2" in page and "hidden</span>" in page and "values differ" in page
    filtered = app_client.get(
        f"/instructor/students/{stu}", params={"exercise": "past-due"}, headers=teacher
    ).text
    assert "SECRET_CODE" not in filtered and "No submissions for this exercise." in filtered
    people = app_client.get("/instructor/students", headers=teacher).text
    assert f"/instructor/students/{stu}" in people
    assert app_client.get("/instructor/students/999", headers=teacher).status_code == 404


def test_promote_and_demote(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    prof = _instructor_browser(app_client)
    page = app_client.get(f"/instructor/students/{stu}").text
    token = form_token(page.split("/role", 1)[1])
    promoted = app_client.post(
        f"/instructor/students/{stu}/role",
        data={"csrf_token": token, "role": "instructor"},
        follow_redirects=False,
    )
    assert promoted.status_code == 303
    assert app_client.get("/instructor/gradebook", headers=student).status_code == 200
    demoted = app_client.post(
        f"/instructor/students/{stu}/role", data={"csrf_token": token, "role": "student"}
    )
    assert demoted.status_code == 200 and "The role is changed." in demoted.text
    assert app_client.get("/instructor/gradebook", headers=student).status_code == 403
    own = app_client.post(
        f"/instructor/students/{prof.id}/role", data={"csrf_token": token, "role": "student"}
    )
    assert own.status_code == 400 and "cannot change your own role" in own.text
    nonsense = app_client.post(
        f"/instructor/students/{stu}/role", data={"csrf_token": token, "role": "admin"}
    )
    assert nonsense.status_code == 400 and "Choose the role" in nonsense.text
