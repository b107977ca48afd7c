"""The access-control matrix: each role × each staff route, in its offering and in another."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.db import session_factory
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.models import User
from app.users.service import issue_api_token
from tests.instructor.conftest import EXERCISE, add_submission, at, person
from tests.instructor.test_access import ROUTES, all_routes

# Staff pages a teaching assistant may use: students' work, gradebook, reports, overrides,
# comments, rubric grading, regrade requests, who needs help, extensions, item statistics
# (quizzes' and assessments'). Everything else (content, regrades, explaining a mistake,
# assessments' attempts and accommodations, LMS settings, staff roles, the offering's settings:
# late policy and due dates) is instructors'.
TA_ALLOWED = re.compile(
    r"^/(api/)?instructor(/gradebook|/exercises|/quizzes|/students|/submissions|/problems"
    r"|/regrade-requests|/attention"
    r"|/assessments/\{slug\}/items|$)"
)
TA_REFUSED_ANYWAY = re.compile(
    r"(/regrade$|/students/\{user_id\}/role$|/students/\{user_id\}/password-link$"
    r"|/misconception$)"
)
ROLES = ("admin", "instructor", "ta", "student", "other_instructor", "visitor")


def admin_routes() -> list[tuple[str, str]]:
    """(method, path) of the site administrators' routes (creating offerings)."""
    return [
        (method, path)
        for path, route in all_routes(create_app().routes)
        if path.startswith(("/admin/offerings", "/admin/roles", "/api/admin/"))
        for method in sorted(route.methods)
    ]


ADMIN_ROUTES = admin_routes()


def ta_may(method: str, path: str) -> bool:
    """Whether the matrix lets a teaching assistant use this route."""
    return bool(TA_ALLOWED.match(path)) and not TA_REFUSED_ANYWAY.search(path)


# Staff pages that only a site administrator may use: an LMS is trusted by every course and
# offering, and whoever sets its key URL can sign launches as anyone.
SITE_ADMINS_ONLY = {("POST", "/instructor/lti/platforms")}


def expected(role: str, method: str, path: str) -> str:
    """'allowed', 'denied' (403) or 'login' (401 or a redirect to the login page)."""
    if role == "visitor":
        return "login"
    if (method, path) in SITE_ADMINS_ONLY:
        return "allowed" if role == "admin" else "denied"
    if role in ("admin", "instructor"):
        return "allowed"
    if role == "ta":
        return "allowed" if ta_may(method, path) else "denied"
    return "denied"  # a student here, or an instructor of another offering


@dataclass
class World:
    """Offering A (the first) with its people, offering B with its instructor."""

    first: int
    other: int
    headers: dict[str, dict[str, str]]
    params: dict[str, str]


def _headers_for(user_id: int) -> dict[str, str]:
    with session_factory()() as session:
        user = session.get(User, user_id)
        assert user is not None
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _world() -> World:
    admin_id, admin = person("admin@example.org", "Adm")
    teacher_id, teacher = person("teacher@example.org", "Tea")
    ta_id, ta = person("ta@example.org", "Tay")
    student_id, student = person("student@example.org", "Stu")
    other_id, other = person("other@example.org", "Oth")
    with session_factory()() as session:
        first = first_offering(session=session)
        second = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027, section B"
        )
        admin_user = session.get(User, admin_id)
        assert admin_user is not None
        admin_user.is_admin = True
        session.execute(  # `person` joined everyone to the first offering; B's teacher is not in A
            text("DELETE FROM enrollments WHERE user_id IN (:a, :o)"),
            {"a": admin_id, "o": other_id},
        )
        session.commit()
        for uid, role, offering in (
            (teacher_id, OfferingRole.instructor, first),
            (ta_id, OfferingRole.ta, first),
            (other_id, OfferingRole.instructor, second),
        ):
            found = session.get(User, uid)
            assert found is not None
            enroll(session=session, offering=offering, user=found, role=role)
        first_id, second_id = first.id, second.id
    submission = add_submission(student_id, EXERCISE, [True, False], at(3))
    return World(
        first=first_id,
        other=second_id,
        headers={
            "admin": admin,
            "instructor": teacher,
            "ta": ta,
            "student": student,
            "other_instructor": other,
            "visitor": {},
        },
        params={
            "slug": EXERCISE,
            "user_id": str(student_id),
            "submission_id": str(submission),
            "extension_id": "999999",
            "context_id": "999999",
            "report_id": "999999",
            "request_id": "999999",
            "job_id": "999999",
            "key": "no-such-key",
            "a": str(submission),
            "b": str(submission),
        },
    )


def _outcome(status: int, location: str) -> str:
    if status == 401 or (status in (302, 303) and location.startswith("/login")):
        return "login"
    return "denied" if status == 403 else "allowed"


@pytest.mark.parametrize("prefixed", [False, True], ids=["old-url", "offering-url"])
@pytest.mark.parametrize("role", ROLES)
def test_access_matrix(app_client: TestClient, role: str, prefixed: bool) -> None:
    world = _world()
    seen: dict[str, str] = {}
    wanted: dict[str, str] = {}
    for method, path in ROUTES:
        params = world.params
        if method == "POST":  # a refused POST must not act; an allowed one meets a missing row
            params = {**params, "slug": "no-such-exercise", "user_id": "999999"}
            params |= {"submission_id": "999999"}
        url = re.sub(r"\{(\w+)\}", lambda m: params[m[1]], path)
        if prefixed:
            url = f"/offerings/{world.first}{url}"
        kwargs = {"json": {}} if path.startswith("/api/") and method == "POST" else {}
        answer = app_client.request(
            method, url, headers=world.headers[role], follow_redirects=False, **kwargs
        )
        key = f"{method} {path}"
        seen[key] = _outcome(answer.status_code, answer.headers.get("location", ""))
        wanted[key] = expected(role, method, path)
    assert seen == wanted


@pytest.mark.parametrize("role", ROLES)
def test_only_site_admins_create_offerings(app_client: TestClient, role: str) -> None:
    world = _world()
    seen: dict[str, str] = {}
    for method, path in ADMIN_ROUTES:
        kwargs = {"json": {"course": "no-such-course", "title": ""}} if method == "POST" else {}
        if method == "POST" and not path.startswith("/api/"):
            kwargs = {"data": {"course": "no-such-course", "title": ""}}
        answer = app_client.request(
            method, path, headers=world.headers[role], follow_redirects=False, **kwargs
        )
        seen[f"{method} {path}"] = _outcome(answer.status_code, answer.headers.get("location", ""))
    wanted = "login" if role == "visitor" else "allowed" if role == "admin" else "denied"
    assert seen == {f"{method} {path}": wanted for method, path in ADMIN_ROUTES}


def test_the_admin_matrix_covers_the_offerings_page_and_api() -> None:
    assert set(ADMIN_ROUTES) == {
        ("GET", "/admin/offerings"),
        ("POST", "/admin/offerings"),
        ("GET", "/api/admin/offerings"),
        ("POST", "/api/admin/offerings"),
        ("POST", "/admin/roles"),
        ("POST", "/api/admin/roles"),
    }


def test_the_matrix_covers_password_links() -> None:
    links = {
        ("POST", "/api/instructor/students/{user_id}/password-link"),
        ("POST", "/instructor/students/{user_id}/password-link"),
        ("GET", "/instructor/roster"),
        ("POST", "/instructor/roster"),
    }
    assert set(ROUTES) >= links
    assert [route for route in sorted(links) if ta_may(*route)] == []


SETTINGS = {
    ("GET", "/instructor/settings"),
    ("POST", "/instructor/settings/late-policy"),
    ("POST", "/instructor/settings/due-dates"),
    ("GET", "/api/instructor/settings"),
    ("POST", "/api/instructor/late-policy"),
    ("POST", "/api/instructor/due-dates"),
}


def test_the_matrix_covers_the_offering_settings() -> None:
    assert set(ROUTES) >= SETTINGS
    assert [route for route in sorted(SETTINGS) if ta_may(*route)] == []


LMS_LINK = {
    ("GET", "/instructor/lms"),
    ("POST", "/instructor/lms/link"),
    ("POST", "/instructor/lms/contexts/{context_id}/unlink"),
    ("GET", "/api/instructor/lms"),
    ("POST", "/api/instructor/lms/links"),
    ("DELETE", "/api/instructor/lms/links/{context_id}"),
}


def test_the_matrix_covers_the_lms_link() -> None:
    # The offering's LMS link: instructors and site admins; TAs, students and other offerings'
    # instructors are refused (the matrix above runs every one of these routes).
    assert set(ROUTES) >= LMS_LINK
    assert [route for route in sorted(LMS_LINK) if ta_may(*route)] == []


def test_an_instructor_of_another_offering_sees_none_of_its_people(
    app_client: TestClient,
) -> None:
    world = _world()
    other = world.headers["other_instructor"]
    student = world.params["user_id"]
    own = app_client.get(f"/offerings/{world.other}/api/instructor/gradebook", headers=other)
    assert own.status_code == 200 and own.json()["students"] == []
    there = app_client.get(f"/offerings/{world.first}/api/instructor/gradebook", headers=other)
    assert there.status_code == 403
    assert there.json()["detail"] == "You are not a member of this offering."
    by_id = app_client.get(f"/offerings/{world.other}/instructor/students/{student}", headers=other)
    assert by_id.status_code == 404
    teacher = world.headers["instructor"]
    mine = app_client.get(f"/offerings/{world.first}/api/instructor/gradebook", headers=teacher)
    assert [s["email"] for s in mine.json()["students"]] == ["student@example.org"]


def test_an_unknown_offering_is_a_404(app_client: TestClient) -> None:
    world = _world()
    answer = app_client.get(
        "/offerings/999999/api/instructor/gradebook", headers=world.headers["admin"]
    )
    assert answer.status_code == 404
    assert answer.json()["detail"] == "There is no offering 999999."


def test_the_staff_home_keeps_the_offering(app_client: TestClient) -> None:
    world = _world()
    answer = app_client.get(
        f"/offerings/{world.first}/instructor",
        headers=world.headers["ta"],
        follow_redirects=False,
    )
    assert answer.headers["location"] == f"/offerings/{world.first}/instructor/gradebook"
