"""The site administrator's offerings page and API: create an offering, list a course's."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import enroll, first_offering
from app.users.models import User
from app.users.service import issue_api_token
from tests.users.helpers import PASSWORD, form_token, login, make_user

COURSE = "positional-embeddings"


def _admin(email: str = "admin@example.org") -> dict[str, str]:
    user = make_user(email, name="Adm")
    with session_factory()() as session:
        found = session.get(User, user.id)
        assert found is not None
        found.is_admin = True
        session.commit()
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=found)}"}


def test_an_admin_creates_and_lists_offerings_by_the_api(client: TestClient) -> None:
    headers = _admin()
    made = client.post(
        "/api/admin/offerings",
        json={
            "course": COURSE,
            "title": "Spring 2027, section A",
            "starts_at": "2027-01-15",
            "ends_at": "2027-05-15",
        },
        headers=headers,
    )
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["title"] == "Spring 2027, section A" and body["course"] == COURSE
    assert body["starts_at"].startswith("2027-01-15") and body["ends_at"].startswith("2027-05-15")
    assert body["join_code"] and body["join_url"] == f"/join/{body['join_code']}"
    listed = client.get(f"/api/admin/offerings?course={COURSE}", headers=headers)
    assert listed.status_code == 200
    assert [o["title"] for o in listed.json()] == ["First offering", "Spring 2027, section A"]
    missing = client.get("/api/admin/offerings?course=no-such-course", headers=headers)
    assert missing.status_code == 404


def test_the_api_refuses_duplicates_unknown_courses_and_empty_titles(client: TestClient) -> None:
    headers = _admin()
    first = {"course": COURSE, "title": "Spring 2027, section A"}
    assert client.post("/api/admin/offerings", json=first, headers=headers).status_code == 201
    cases = {
        "duplicate": ({**first, "title": " spring 2027,  SECTION a "}, "already has an offering"),
        "unknown": ({**first, "course": "no-such-course"}, "There is no course called"),
        "empty": ({**first, "title": "   "}, "Give the offering a title"),
        "dates": ({**first, "title": "B", "starts_at": "soon"}, "is not a date like"),
        "order": (
            {**first, "title": "C", "starts_at": "2027-05-01", "ends_at": "2027-01-01"},
            "must end after it starts",
        ),
    }
    for name, (body, words) in cases.items():
        answer = client.post("/api/admin/offerings", json=body, headers=headers)
        assert answer.status_code == 422, name
        detail = answer.json()["detail"]
        assert isinstance(detail, str) and words in detail and detail.endswith("."), name
    listed = client.get(f"/api/admin/offerings?course={COURSE}", headers=headers).json()
    assert len(listed) == 2


def test_only_site_admins_reach_the_page_and_api(client: TestClient) -> None:
    people = {}
    for name, role in (
        ("teacher", OfferingRole.instructor),
        ("ta", OfferingRole.ta),
        ("student", OfferingRole.student),
    ):
        user = make_user(f"{name}@example.org")
        with session_factory()() as session:
            found = session.get(User, user.id)
            assert found is not None
            enroll(session=session, offering=first_offering(session=session), user=found, role=role)
            people[name] = {
                "Authorization": f"Bearer {issue_api_token(session=session, user=found)}"
            }
    for name, headers in people.items():
        for method, url in (
            ("GET", "/admin/offerings"),
            ("POST", "/admin/offerings"),
            ("GET", "/api/admin/offerings"),
            ("POST", "/api/admin/offerings"),
        ):
            kwargs = {"json": {"course": COURSE, "title": "X"}} if url.startswith("/api") else {}
            answer = client.request(method, url, headers=headers, **kwargs)
            assert answer.status_code == 403, (name, method, url)
            assert "site administrators only" in answer.text
    assert client.get("/api/admin/offerings").status_code == 401
    page = client.get("/admin/offerings", headers={"accept": "text/html"}, follow_redirects=False)
    assert page.status_code in (401, 303)


def _browser_admin(client: TestClient) -> None:
    _admin()
    assert login(client, "admin@example.org", password=PASSWORD).status_code == 303


def test_the_form_creates_an_offering_and_lists_it(client: TestClient) -> None:
    _browser_admin(client)
    page = client.get("/admin/offerings")
    assert page.status_code == 200 and "First offering" in page.text
    assert '<a href="/admin/offerings">Offerings</a>' in page.text  # in the header
    done = client.post(
        "/admin/offerings",
        data={
            "course": COURSE,
            "title": "Fall <2027> & co",
            "starts": "2027-09-01",
            "ends": "",
            "join_code": "1",
            "csrf_token": form_token(page.text),
        },
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    shown = client.get(done.headers["location"])
    assert "Fall &lt;2027&gt; &amp; co" in shown.text and "Fall <2027>" not in shown.text
    assert "was created" in shown.text and "2027-09-01" in shown.text


def test_the_form_shows_errors_and_keeps_the_values(client: TestClient) -> None:
    _browser_admin(client)
    token = form_token(client.get("/admin/offerings").text)
    for data, words in (
        ({"course": COURSE, "title": "First offering"}, "already has an offering"),
        ({"course": "<no-such>", "title": "Keep <me>"}, "There is no course called"),
        ({"course": COURSE, "title": "  ", "starts": "2027-02-03"}, "Give the offering a title"),
    ):
        answer = client.post("/admin/offerings", data={**data, "csrf_token": token})
        assert answer.status_code == 422, data
        assert words in answer.text.replace("&#39;", "'")
        if data["title"].strip():
            kept = data["title"].replace("<", "&lt;").replace(">", "&gt;")
            assert f'value="{kept}"' in answer.text
        assert "<no-such>" not in answer.text
    kept_date = client.post(
        "/admin/offerings",
        data={"course": COURSE, "title": "", "starts": "2027-02-03", "csrf_token": token},
    )
    assert 'value="2027-02-03"' in kept_date.text


def test_the_form_needs_its_csrf_token(client: TestClient) -> None:
    _browser_admin(client)
    refused = client.post("/admin/offerings", data={"course": COURSE, "title": "No token"})
    assert refused.status_code == 403
    headers = _admin("admin2@example.org")
    titles = [o["title"] for o in client.get("/api/admin/offerings", headers=headers).json()]
    assert "No token" not in titles
