"""Every course-scoped route of the first course also answers under the second course's prefix
(`/courses/{course}/...` and `/api/courses/{course}/...`, issue 47 point 1)."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Match

from app.content.service import get_course
from app.courses.routes import router as course_routes
from app.main import create_app
from app.web.course_urls import split, split_api
from tests.users.helpers import logged_in_client, make_instructor

SECOND = "attention-step-by-step"
SAMPLE = {"slug": "split-heads", "user_id": "1", "a": "1", "b": "2", "key": "k"}


def _course_scoped(dependant: object) -> bool:
    """Whether a route reads the request's course (CourseDep, or a Place built from it)."""
    return any(d.call is get_course or _course_scoped(d) for d in dependant.dependencies)  # type: ignore[attr-defined]


def _routes(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every course-scoped route of the first course."""
    own = {id(r) for r in course_routes.routes}  # /api/courses/... itself
    return sorted(
        (sorted(route.methods or {"GET"})[0], route.path)
        for route in app.routes
        if isinstance(route, APIRoute) and id(route) not in own and _course_scoped(route.dependant)
    )


def _concrete(path: str) -> str:
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: SAMPLE.get(m[1], "7"), path)


def _under_second(path: str) -> str:
    if path.startswith("/api/"):
        return f"/api/courses/{SECOND}/{path.removeprefix('/api/')}"
    return f"/courses/{SECOND}{path}"


def _served(app: FastAPI, method: str, path: str) -> bool:
    """The prefix middleware's rewrite of the path reaches a route of that method."""
    found = split(path) or split_api(path)
    if found is None:
        return False
    scope = {"type": "http", "path": found[1], "method": method, "root_path": ""}
    return any(r.matches(scope)[0] is Match.FULL for r in app.routes if isinstance(r, APIRoute))


def test_every_course_scoped_route_answers_under_the_second_course() -> None:
    app = create_app()
    routes = _routes(app)
    assert len(routes) > 60  # pages, APIs and staff pages alike
    missing = [
        f"{method} {_under_second(path)}"
        for method, path in routes
        if not _served(app, method, _under_second(_concrete(path)))
        and path not in ("/api/lessons", "/api/exercises")  # app/courses/routes.py serves these
    ]
    assert missing == []


def test_the_second_course_staff_pages_show_its_content(client: TestClient) -> None:
    from app.db import session_factory
    from app.offerings.models import OfferingRole
    from app.offerings.service import enroll, first_offering
    from app.users.models import User

    user = logged_in_client(client, "teacher@example.org")
    make_instructor(user.id)  # of the first course's first offering (its plain URLs)
    with session_factory()() as session:  # and of the second course's (its URLs without one)
        person = session.get(User, user.id)
        assert person is not None
        offering = first_offering(session=session, course_slug=SECOND)
        enroll(session=session, offering=offering, user=person, role=OfferingRole.instructor)
    gradebook = client.get(f"/api/courses/{SECOND}/instructor/gradebook")
    assert gradebook.status_code == 200, gradebook.text
    assert "split-heads" in gradebook.json()["exercises"]
    assert "split-heads" not in client.get("/api/instructor/gradebook").json()["exercises"]
    analytics = client.get(f"/courses/{SECOND}/instructor/exercises/split-heads")
    assert analytics.status_code == 200 and "split-heads" in analytics.text
    for path in ("/instructor/settings", "/instructor/attention", "/instructor/content"):
        assert client.get(f"/courses/{SECOND}{path}").status_code == 200, path
    assert client.get(f"/api/courses/{SECOND}/lessons").status_code == 200


def test_a_second_course_offering_has_its_staff_pages_under_both_prefixes(
    client: TestClient,
) -> None:
    from app.db import session_factory
    from app.offerings.models import Offering, OfferingRole
    from app.offerings.service import enroll
    from app.users.models import User

    user = logged_in_client(client, "second@example.org")
    with session_factory()() as session:
        offering = Offering(course_slug=SECOND, title="Attention, this term", is_open=True)
        session.add(offering)
        session.flush()
        person = session.get(User, user.id)
        assert person is not None
        enroll(session=session, offering=offering, user=person, role=OfferingRole.instructor)
        session.commit()
        base = f"/courses/{SECOND}/offerings/{offering.id}"
    book = client.get(f"{base}/api/instructor/gradebook")
    assert book.status_code == 200 and "split-heads" in book.json()["exercises"]
    page = client.get(f"{base}/instructor/settings")
    assert page.status_code == 200
    # The second course's URL without an offering means its first offering, this one; the
    # plain URL means the first course's, where they hold no role.
    assert client.get(f"/courses/{SECOND}/instructor/settings").status_code == 200
    assert client.get("/instructor/settings").status_code == 403
    moved = client.get(f"{base}/instructor", follow_redirects=False)
    assert moved.headers["location"] == f"{base}/instructor/gradebook"
