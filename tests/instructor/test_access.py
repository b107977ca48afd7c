"""Every instructor route refuses students (403) and visitors (401), found from the app itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.main import create_app
from app.users.models import Role
from tests.instructor.conftest import EXERCISE, person
from tests.users.helpers import logged_in_client

PARAMS = {
    "slug": EXERCISE,
    "user_id": "1",
    "submission_id": "1",
    "job_id": "1",
    "extension_id": "1",
    "context_id": "1",
    "report_id": "1",
    "request_id": "1",
    "a": "1",
    "b": "2",
    "key": "0123456789abcdef",
}


def all_routes(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, APIRoute]]:
    """Every API route with its full path, walking into included routers."""
    for route in routes:
        inner = getattr(route, "original_router", None)  # FastAPI includes routers lazily
        if inner is not None:
            context = getattr(route, "include_context", None)
            yield from all_routes(inner.routes, prefix + str(getattr(context, "prefix", "")))
        elif isinstance(route, APIRoute):
            yield prefix + route.path, route


def instructor_routes() -> list[tuple[str, str]]:
    """(method, path) of every route that belongs to instructors."""
    found = []
    for path, route in all_routes(create_app().routes):
        if (
            path.startswith(("/instructor", "/api/instructor"))
            or "instructor" in route.tags
            or path.endswith("/regrade")
        ):
            found.extend((method, path) for method in sorted(route.methods))
    return found


ROUTES = instructor_routes()


def test_the_route_list_is_complete() -> None:
    paths = {path for _, path in ROUTES}
    for expected in (
        "/instructor/gradebook",
        "/instructor/gradebook.csv",
        "/api/exercises/{slug}/regrade",
        "/api/lessons/{slug}/quiz/regrade",
        "/instructor/quizzes/{slug}/regrade",
        "/api/instructor/exercises/{slug}/clusters/{key}/rubric",
        "/instructor/exercises/{slug}/clusters/{key}/rubric",
        "/api/jobs/{job_id}",
        "/instructor/exercises/{slug}",
        "/instructor/students/{user_id}",
        "/api/instructor/submissions/{submission_id}/override",
        "/instructor/students/{user_id}/extensions",
        "/api/content/problems",
        "/instructor/assessments/{slug}/items.csv",
        "/api/instructor/assessments/{slug}/items",
        "/instructor/lms",
        "/instructor/lms/link",
        "/instructor/lms/contexts/{context_id}/unlink",
        "/api/instructor/lms",
        "/api/instructor/lms/links",
        "/api/instructor/lms/links/{context_id}",
    ):
        assert expected in paths
    assert len(ROUTES) >= 20


def _url(path: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: PARAMS[m[1]], path)


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_students_get_403_and_visitors_401(app_client: TestClient, method: str, path: str) -> None:
    _, student = person("student@example.org", "Stu")
    url = _url(path)
    kwargs = {"json": {}} if path.startswith("/api/") and method == "POST" else {}
    as_student = app_client.request(method, url, headers=student, **kwargs)
    assert as_student.status_code == 403, as_student.text
    assert "instructors only" in as_student.text
    visitor = app_client.request(method, url, follow_redirects=False, **kwargs)
    assert visitor.status_code in (401, 303), visitor.text
    if visitor.status_code == 303:
        assert visitor.headers["location"].startswith("/login")


def test_a_logged_in_student_browser_gets_the_403_page(app_client: TestClient) -> None:
    logged_in_client(app_client, "browser@example.org", name="Bea")
    for url in ("/instructor/gradebook", "/instructor/gradebook.csv", "/instructor/students/1"):
        response = app_client.get(url, headers={"accept": "text/html"})
        assert response.status_code == 403
        assert "This page is for instructors only." in response.text
        assert "@example.org" not in response.text.replace("browser@example.org", "")


@pytest.mark.parametrize(
    "url",
    [
        "/instructor",
        "/instructor/gradebook",
        "/instructor/gradebook.csv",
        "/api/instructor/gradebook",
        "/instructor/exercises",
        f"/instructor/exercises/{EXERCISE}",
        f"/api/instructor/exercises/{EXERCISE}/analytics",
        f"/api/exercises/{EXERCISE}/regrade",
        "/instructor/students",
        "/instructor/content",
        "/api/content/problems",
        "/instructor/lms",
        "/api/instructor/lms",
    ],
)
def test_instructors_can_open_every_page(app_client: TestClient, url: str) -> None:
    _, teacher = person("teacher@example.org", "Tea", Role.instructor)
    response = app_client.get(url, headers=teacher)
    assert response.status_code == 200, response.text


def test_student_pages_show_no_instructor_link(app_client: TestClient) -> None:
    _, student = person("student@example.org", "Stu")
    assert "/instructor/" not in app_client.get("/", headers=student).text
