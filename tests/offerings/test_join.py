"""Joining an offering with its invitation link or code, and seeing it on the home page."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import create_offering, enroll, role_in
from app.users.models import User
from tests.users.helpers import form_token, logged_in_client


def _offering(title: str = "Spring 2027, section A") -> tuple[int, str]:
    with session_factory()() as session:
        offering = create_offering(
            session=session, course_slug="positional-embeddings", title=title
        )
        assert offering.join_code is not None
        return offering.id, offering.join_code


def _role(user: User, offering_id: int) -> OfferingRole | None:
    with session_factory()() as session:
        return role_in(session=session, user_id=user.id, offering_id=offering_id)


def test_the_invitation_link_asks_a_visitor_to_log_in_first(client: TestClient) -> None:
    _, code = _offering()
    answer = client.get(f"/join/{code}", follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/login?next=/join/{code}"


def test_a_student_joins_with_the_link_and_sees_the_offering_at_home(client: TestClient) -> None:
    offering_id, code = _offering()
    user = logged_in_client(client, "ada@example.org")
    page = client.get(f"/join/{code.lower()}")
    assert page.status_code == 200 and "Spring 2027, section A" in page.text
    joined = client.post(
        f"/join/{code}", data={"csrf_token": form_token(page.text)}, follow_redirects=False
    )
    assert joined.status_code == 303 and joined.headers["location"] == "/?joined=1"
    assert _role(user, offering_id) == OfferingRole.student
    assert "Spring 2027, section A" in client.get("/").text


def test_joining_without_the_form_token_is_refused(client: TestClient) -> None:
    offering_id, code = _offering()
    user = logged_in_client(client, "ada@example.org")
    assert client.post(f"/join/{code}").status_code == 403
    assert _role(user, offering_id) is None


def test_an_unknown_code_says_so(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    answer = client.get("/join/NOPE1234", headers={"accept": "text/html"})
    assert answer.status_code == 404
    assert "This invitation link is not valid" in answer.text


def test_the_api_joins_by_code_and_lists_the_offerings(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    offering_id, code = _offering()
    joined = client.post(
        "/api/offerings/join", json={"code": f" {code.lower()} "}, headers=student_headers
    )
    assert joined.status_code == 200, joined.text
    assert joined.json() == {
        "id": offering_id,
        "course": "positional-embeddings",
        "title": "Spring 2027, section A",
        "role": "student",
        "url": "/",
    }
    mine = client.get("/api/offerings", headers=student_headers).json()
    assert [m["title"] for m in mine] == ["Spring 2027, section A", "First offering"]
    bad = client.post("/api/offerings/join", json={"code": "WRONG"}, headers=student_headers)
    assert bad.status_code == 404
    assert bad.json()["detail"].startswith("This invitation code is not valid")


def test_staff_who_use_the_link_keep_their_role(client: TestClient) -> None:
    offering_id, code = _offering()
    user = logged_in_client(client, "tay@example.org")
    with session_factory()() as session:
        offering = session.get(Offering, offering_id)
        found = session.get(User, user.id)
        assert offering is not None and found is not None
        enroll(session=session, offering=offering, user=found, role=OfferingRole.ta)
    page = client.get(f"/join/{code}")
    client.post(f"/join/{code}", data={"csrf_token": form_token(page.text)})
    assert _role(user, offering_id) == OfferingRole.ta


def test_an_instructor_uploads_a_roster_to_their_offering(
    client: TestClient, instructor_headers: dict[str, str]
) -> None:
    offering_id, _ = _offering()
    with session_factory()() as session:
        offering = session.get(Offering, offering_id)
        teacher = session.scalars(select(User).where(User.email == "teacher@example.org")).one()
        assert offering is not None
        enroll(session=session, offering=offering, user=teacher, role=OfferingRole.instructor)
    csv = "email,name,role\nada@example.org,Ada,student\ntay@example.org,Tay,ta\n"
    url = f"/offerings/{offering_id}/api/instructor/roster"
    done = client.post(url, json={"csv": csv}, headers=instructor_headers)
    assert done.status_code == 200, done.text
    body = done.json()
    links = body.pop("password_links")
    assert body == {"offering": offering_id, "enrolled": 2}
    assert [link["email"] for link in links] == ["ada@example.org", "tay@example.org"]
    bad = client.post(url, json={"csv": "name\nAda\n"}, headers=instructor_headers)
    assert bad.status_code == 422
    assert bad.json()["detail"] == "The first line must name the columns: email,name,role."


def test_the_home_page_and_the_api_list_each_offering_with_its_role_and_where_it_starts(
    client: TestClient,
) -> None:
    # The home page reads these as columns (issue 54); staff start at the gradebook.
    taught, _ = _offering("Autumn 2027, TA section")
    studied, code = _offering("Autumn 2027, section B")
    user = logged_in_client(client, "grace@example.org")
    with session_factory()() as session:
        offering = session.get(Offering, taught)
        assert offering is not None
        enroll(session=session, offering=offering, user=user, role=OfferingRole.ta)
        session.commit()
    page = client.get(f"/join/{code}")
    client.post(f"/join/{code}", data={"csrf_token": form_token(page.text)})
    mine = client.get("/api/offerings").json()
    assert [(m["id"], m["role"], m["url"]) for m in mine] == [
        (studied, "student", "/"),
        (taught, "ta", f"/offerings/{taught}/instructor/gradebook"),
    ]
    home = client.get("/").text
    assert f'<a href="/offerings/{taught}/instructor/gradebook">Autumn 2027, TA section</a>' in home
    assert "positional-embeddings ·\n      teaching assistant" in home
