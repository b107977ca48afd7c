"""A term sets itself up in the browser: an instructor starts an offering of a course they
teach and becomes its instructor; students type its code on their home page (issue 49)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import enroll, first_offering, role_in
from app.users.models import User
from app.users.service import issue_api_token
from tests.users.helpers import form_token, logged_in_client, make_user

COURSE = "positional-embeddings"


def _role(user: User, offering_id: int) -> OfferingRole | None:
    with session_factory()() as session:
        return role_in(session=session, user_id=user.id, offering_id=offering_id)


def _bearer(user: User) -> dict[str, str]:
    with session_factory()() as session:
        found = session.get(User, user.id)
        assert found is not None
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=found)}"}


def _in_first(user: User, role: OfferingRole) -> None:
    with session_factory()() as session:
        enroll(session=session, offering=first_offering(session=session), user=user, role=role)


def test_an_instructor_starts_an_offering_and_a_student_joins_by_typing_its_code(
    client: TestClient,
) -> None:
    teacher = logged_in_client(client, "teach@example.org", name="Tess")
    _in_first(teacher, OfferingRole.instructor)
    settings = client.get("/instructor/settings").text
    made = client.post(
        "/offerings/new",
        data={"csrf_token": form_token(settings), "course": COURSE, "title": "Spring 2027"},
        follow_redirects=False,
    )
    assert made.status_code == 303
    new_id = int(made.headers["location"].split("/")[2])
    assert _role(teacher, new_id) == OfferingRole.instructor
    page = client.get(made.headers["location"]).text
    assert "Your new offering is ready" in page
    code = page.split('id="join"', 1)[1].split("<code>", 1)[1].split("</code>", 1)[0]
    assert f"/join/{code}" in page
    again = client.post(
        "/api/offerings", json={"course": COURSE, "title": "spring  2027"}, headers=_bearer(teacher)
    )
    assert again.status_code == 422  # the same title twice cannot be told apart

    client.post("/logout", data={"csrf_token": form_token(client.get("/").text)})
    student = logged_in_client(client, "stu@example.org", name="Stu")
    home = client.get("/").text
    typed = client.post(
        "/join",
        data={
            "csrf_token": form_token(home.split('class="join-code"', 1)[1]),
            "code": code.lower(),
        },
        follow_redirects=False,
    )
    assert typed.status_code == 303 and typed.headers["location"] == f"/join/{code}"
    confirm = client.get(typed.headers["location"]).text
    joined = client.post(f"/join/{code}", data={"csrf_token": form_token(confirm)})
    assert joined.status_code == 200
    assert _role(student, new_id) == OfferingRole.student


def test_only_an_instructor_of_the_course_starts_an_offering_of_it(client: TestClient) -> None:
    body = {"course": COURSE, "title": "Autumn 2027"}
    student = logged_in_client(client, "s@example.org")
    _in_first(student, OfferingRole.student)
    assert client.post("/api/offerings", json=body, headers=_bearer(student)).status_code == 403
    ta = make_user("ta@example.org")
    _in_first(ta, OfferingRole.ta)
    assert client.post("/api/offerings", json=body, headers=_bearer(ta)).status_code == 403
    teacher = logged_in_client(client, "t@example.org")
    _in_first(teacher, OfferingRole.instructor)
    other_course = client.post(
        "/api/offerings",
        json={"course": "attention-step-by-step", "title": "Autumn 2027"},
        headers=_bearer(teacher),
    )
    assert other_course.status_code == 403  # teaching one course gives nothing in another
    made = client.post("/api/offerings", json=body, headers=_bearer(teacher))
    assert made.status_code == 201 and made.json()["join_url"].endswith(made.json()["join_code"])
    empty = client.post("/join", data={"csrf_token": form_token(client.get("/").text), "code": " "})
    assert empty.status_code == 422
