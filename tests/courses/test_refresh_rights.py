"""Refreshing a course needs a staff role in that course (the URL's), not in the first course:
an instructor of one course refreshed another, and the courses page offered them its button."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.authoring.editors import grant
from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import enroll, first_offering
from app.users.service import create_user, issue_api_token
from tests.users.helpers import PASSWORD, form_token, login

FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
ROLES = {
    "first_instructor": (FIRST, OfferingRole.instructor),
    "second_instructor": (SECOND, OfferingRole.instructor),
    "second_ta": (SECOND, OfferingRole.ta),
    "first_student": (FIRST, OfferingRole.student),
}


def _people() -> dict[str, dict[str, str]]:
    """A bearer header for each person: a role in one course's first offering, an editor of the
    second course (no offering role), and a site administrator (no role at all)."""
    headers = {}
    with session_factory()() as session:
        for name in [*ROLES, "second_editor", "admin"]:
            user, _ = create_user(
                session=session,
                email=f"{name}@example.org",
                password=PASSWORD,
                join_first_offering=False,
            )
            if name in ROLES:
                course, role = ROLES[name]
                offering = first_offering(session=session, course_slug=course)
                enroll(session=session, offering=offering, user=user, role=role)
            if name == "admin":
                user.is_admin = True
                session.commit()
            token = issue_api_token(session=session, user=user)
            headers[name] = {"Authorization": f"Bearer {token}"}
        grant(session=session, course_slug=SECOND, email="second_editor@example.org", by=None)
    return headers


def test_a_course_is_refreshed_by_its_own_staff_only(client: TestClient) -> None:
    people = _people()
    seen = {
        (name, course): client.post(f"/api/courses/{course}/refresh", headers=headers).status_code
        for name, headers in people.items()
        for course in (FIRST, SECOND)
    }
    assert seen == {
        ("first_instructor", FIRST): 200,
        ("first_instructor", SECOND): 403,
        ("second_instructor", FIRST): 403,
        ("second_instructor", SECOND): 200,
        ("second_ta", FIRST): 403,
        ("second_ta", SECOND): 403,
        ("first_student", FIRST): 403,
        ("first_student", SECOND): 403,
        ("second_editor", FIRST): 403,
        ("second_editor", SECOND): 200,
        ("admin", FIRST): 200,
        ("admin", SECOND): 200,
    }
    assert client.post(f"/api/courses/{SECOND}/refresh").status_code == 401
    unknown = client.post("/api/courses/nope/refresh", headers=people["second_instructor"])
    assert unknown.status_code == 404


def _buttons(page: str) -> list[str]:
    return [c for c in (FIRST, SECOND) if f'action="/admin/courses/{c}/refresh"' in page]


def test_the_courses_page_offers_only_the_buttons_one_may_use(client: TestClient) -> None:
    people = _people()
    pages = {name: client.get("/admin/courses", headers=h) for name, h in people.items()}
    assert {name: page.status_code for name, page in pages.items()} == {
        "first_instructor": 200,
        "second_instructor": 200,
        "second_ta": 403,
        "first_student": 403,
        "second_editor": 200,
        "admin": 200,
    }
    assert _buttons(pages["first_instructor"].text) == [FIRST]
    assert _buttons(pages["second_instructor"].text) == [SECOND]
    assert _buttons(pages["second_editor"].text) == [SECOND]
    assert _buttons(pages["admin"].text) == [FIRST, SECOND]
    assert f'id="course-{SECOND}"' not in pages["first_instructor"].text  # nor its folder


def test_the_refresh_button_of_another_course_is_refused(client: TestClient) -> None:
    _people()
    assert login(client, "first_instructor@example.org").status_code == 303
    page = client.get("/admin/courses")
    token = form_token(page.text)
    own = client.post(
        f"/admin/courses/{FIRST}/refresh", data={"csrf_token": token}, follow_redirects=False
    )
    assert own.status_code == 303 and own.headers["location"].endswith(f"applied:{FIRST}")
    other = client.post(
        f"/admin/courses/{SECOND}/refresh", data={"csrf_token": token}, follow_redirects=False
    )
    assert other.status_code == 403
