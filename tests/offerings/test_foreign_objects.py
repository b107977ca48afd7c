"""Generated from the app's route table: every route that takes an object's id, asked by each
role of offering A (and by an account with no role) about an object of offering B (same course)
and of another course's offering, answers 404 or 403 and says nothing about the object.

A new route with an id is in the matrix by itself; one that cannot be must be listed in
`NOT_OBJECT_IDS` with the reason.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.assessments.models import AssessmentAttempt
from app.db import session_factory
from app.deadlines.models import DeadlineExtension
from app.jobs.models import Job
from app.lti.models import LtiContext, LtiPlatform
from app.main import create_app
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.problems.models import ProblemReport
from app.progress.models import QuizAttempt
from app.submissions.models import RegradeRequest, Submission
from app.users.models import User
from app.users.service import create_user, issue_api_token
from tests.instructor.test_access import all_routes

FIRST = "positional-embeddings"
SECOND = "attention-step-by-step"
EXERCISE = {FIRST: "sinusoidal-positional-encoding", SECOND: "scaled-dot-product-attention"}
ROLES = ("student", "ta", "instructor", "none")
PLACES = ("other_offering", "other_course")
ID_PARAMS = re.compile(r"^(id|\w+_id|a|b)$")
# Path parameters that name no stored object of a place (content is the course's, read through
# the request's course; a join code is the key to enter), with why. Any other name must be an id.
NOT_IDS = {
    "slug": "a lesson, exercise or assessment of the request's course (content, not a row)",
    "exercise": "an exercise of the request's course (a draft is the asker's own row)",
    "course": "a course served here (its pages are public; its rows are reached by id)",
    "name": "a figure's or a plot's name",
    "code": "an offering's join code: knowing it is the permission",
    "key": "a behaviour cluster's key: clusters are computed from the request's offering only",
    "version": "a version of the request's course, reached by its editors (a course-level role)",
    "path": "a file of the request's course folder, reached by its editors (a course-level role)",
    "conflict": "a text kept from a conflicting save in the request's course, reached by its "
    "editors only (a course-level role); another course's is 404 (tests/authoring/test_pages.py)",
}
# Path parameters that name an object by id but are not objects of an offering, with why.
NOT_OBJECT_IDS: dict[str, str] = {}
# Routes with an id left out of the matrix, with why (none today).
LEFT_OUT: dict[tuple[str, str], str] = {}
DUE = "2030-01-01T00:00:00Z"


def id_routes() -> list[tuple[str, str]]:
    """(method, path) of every route whose path names an object by its id."""
    found = []
    for path, route in all_routes(create_app().routes):
        names = re.findall(r"\{(\w+)\}", path)
        if any(ID_PARAMS.match(n) and n not in NOT_OBJECT_IDS for n in names):
            found.extend((m, path) for m in sorted(route.methods) if (m, path) not in LEFT_OUT)
    return found


ROUTES = id_routes()


@dataclass
class Place:
    """One offering's objects, each with the id a URL names it by."""

    ids: dict[str, int]
    exercise: str
    secrets: tuple[str, ...]


@dataclass
class World:
    """Offering A's people (asking), and the objects of two other places."""

    first: int
    headers: dict[str, dict[str, str]]
    places: dict[str, Place]


def _account(email: str) -> tuple[User, dict[str, str]]:
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email=email, password="correct horse", join_first_offering=False
        )
        token = issue_api_token(session=session, user=user)
        return user, {"Authorization": f"Bearer {token}"}


def _submission(user_id: int, offering: Offering, exercise: str, code: str) -> Submission:
    report = {
        "verdict": "wrong_answer",
        "score": 0.5,
        "message": "",
        "duration_ms": 1.0,
        "tests": [
            {
                "name": "hidden one",
                "hidden": True,
                "passed": False,
                "verdict": "wrong_answer",
                "message": "values differ",
                "inputs": {"x": 424242},
                "expected": 737373,
            },
        ],
    }
    return Submission(
        user_id=user_id,
        exercise_slug=exercise,
        course_slug=offering.course_slug,
        framework="numpy",
        mode="submit",
        code=code,
        status="done",
        verdict="wrong_answer",
        score=0.5,
        message="",
        report=report,
        offering_id=offering.id,
    )


def _place(offering_id: int, tag: str, platform_id: int) -> Place:
    with session_factory()() as session:
        offering = session.get(Offering, offering_id)
        assert offering is not None
        exercise = EXERCISE[offering.course_slug]
        emails = (f"victim-{tag}@example.org", f"victim2-{tag}@example.org")
        victims = []
        for email in emails:
            user, _ = create_user(
                session=session, email=email, password="correct horse", join_first_offering=False
            )
            enroll(session=session, offering=offering, user=user, role=OfferingRole.student)
            victims.append(user)
        code = f"SECRET_CODE_{tag}"
        rows = [_submission(v.id, offering, exercise, f"# {code}\n") for v in victims]
        extension = DeadlineExtension(
            user_id=victims[0].id,
            kind="exercise",
            slug=exercise,
            due_at=dt.datetime(2030, 1, 1, tzinfo=dt.UTC),
            reason="",
            offering_id=offering.id,
        )
        report = ProblemReport(
            user_id=victims[0].id,
            kind="exercise",
            slug=exercise,
            message=f"SECRET_REPORT_{tag}",
            offering_id=offering.id,
        )
        attempt = AssessmentAttempt(
            user_id=victims[0].id,
            course_slug=offering.course_slug,
            offering_id=offering.id,
            assessment_slug="midterm",
            number=1,
            seed=1,
            items=[],
            rules={},
            deadline=dt.datetime(2030, 1, 1, tzinfo=dt.UTC),
        )
        quiz = QuizAttempt(
            user_id=victims[0].id,
            lesson_slug="some-lesson",
            course_slug=offering.course_slug,
            answers={"q": "SECRET_QUIZ"},
            results={},
            score=0.0,
            offering_id=offering.id,
        )
        context = LtiContext(
            platform_id=platform_id,
            deployment_id="d",
            context_id=f"ctx-{tag}",
            title=f"LMS {tag}",
            offering_id=offering.id,
        )
        session.add_all([*rows, extension, report, attempt, quiz, context])
        session.flush()
        regrade = RegradeRequest(
            submission_id=rows[0].id,
            user_id=victims[0].id,
            exercise_slug=exercise,
            course_slug=offering.course_slug,
            offering_id=offering.id,
            text=f"SECRET_REGRADE_{tag}",
        )
        session.add(regrade)
        job = Job(  # an instructor's regrade, queued in that offering
            kind="regrade",
            payload={"regrade": 1},
            state="done",
            course_slug=offering.course_slug,
            offering_id=offering.id,
            result={"note": f"SECRET_JOB_{tag}"},
        )
        session.add(job)
        session.commit()
        ids = {
            "user_id": victims[0].id,
            "submission_id": rows[0].id,
            "a": rows[0].id,
            "b": rows[1].id,
            "extension_id": extension.id,
            "report_id": report.id,
            "request_id": regrade.id,
            "attempt_id": attempt.id,
            "context_id": context.id,
            "job_id": job.id,
        }
        secrets = (f"SECRET_REPORT_{tag}", f"SECRET_REGRADE_{tag}", "424242", "737373")
        secrets += (f"SECRET_JOB_{tag}",)
        return Place(ids, exercise, (*emails, code, *secrets))


def make_world() -> World:
    """Offering A (the first) with a student, a TA, an instructor; B (same course); C (other)."""
    with session_factory()() as session:
        first = first_offering(session=session)
        other = create_offering(session=session, course_slug=FIRST, title="Section B")
        course = create_offering(session=session, course_slug=SECOND, title="Attention, term 1")
        platform = LtiPlatform(
            issuer="https://lms.example.org",
            client_id="c",
            auth_url="https://lms.example.org/a",
            token_url="https://lms.example.org/t",
            jwks_url="https://lms.example.org/j",
        )
        session.add(platform)
        session.commit()
        first_id, other_id, course_id, platform_id = first.id, other.id, course.id, platform.id
    headers = {}
    for role in ROLES:
        user, header = _account(f"{role}-a@example.org")
        headers[role] = header
        if role != "none":
            with session_factory()() as session:
                offering = session.get(Offering, first_id)
                assert offering is not None
                enroll(session=session, offering=offering, user=user, role=OfferingRole(role))
    places = {
        "other_offering": _place(other_id, "B", platform_id),
        "other_course": _place(course_id, "C", platform_id),
    }
    return World(first_id, headers, places)


def _body(method: str, path: str, place: Place) -> dict[str, Any]:
    """A request the route would act on if the object were the asker's to act on."""
    if method in ("GET", "DELETE"):
        return {}
    form = not path.startswith("/api/")
    values: dict[str, Any] = {
        "score": 1.0,
        "reason": "taken over",
        "percent": "100",
        "kind": "exercise",
        "slug": place.exercise,
        "item": f"exercise:{place.exercise}",
        "due": DUE,
        "role": "instructor",
        "policy": "latest",
        "extra_minutes": 30,
        "value": "x",
        "action": "set",
    }
    if path.endswith("/answers"):
        values = {"item": "x", "value": "x"}
    elif path.endswith("/submit") and not form:
        values = {"reason": "student"}
    elif path.endswith("/accommodations/{user_id}") and not form:
        values = {"extra_minutes": 30, "reason": "x"}
    elif path.endswith("/override") and not form:
        values = {"score": 1.0, "reason": "taken over"}
    elif path.endswith("/extensions") and not form:
        values = {"kind": "exercise", "slug": place.exercise, "due": DUE, "reason": "x"}
    elif path.endswith("/stop") or path.endswith("/password-link"):
        values = {}
    elif path.endswith(("/regrade-request", "/comments", "/writeup")):
        values = {"text": "taken over"}
    elif path.endswith("/answer"):
        values = (
            {"text": "taken over", "score": 1.0} if not form else {"text": "x", "percent": "100"}
        )
    elif path.endswith("/rubric"):
        values = {"applied": [], "comment": "taken over"} if not form else {"comment": "x"}
    return {"data": values} if form else {"json": values}


def _url(path: str, place: Place, first: int) -> str:
    names = {
        "slug": place.exercise,
        "name": "accuracy",
        "course": FIRST,  # the authoring routes' course (a draft's check is looked up by id)
        **{k: str(v) for k, v in place.ids.items()},
    }
    if path.startswith("/instructor/assessments/"):
        names["slug"] = "midterm"
    url = re.sub(r"\{(\w+)\}", lambda m: names[m[1]], path)
    if url.startswith(("/instructor", "/api/")):
        url = f"/offerings/{first}{url}"
    return url


def test_every_path_parameter_is_an_id_or_named_with_a_reason() -> None:
    unknown = {
        (path, name)
        for path, _ in all_routes(create_app().routes)
        for name in re.findall(r"\{(\w+)", path)
        if not ID_PARAMS.match(name) and name not in NOT_IDS
    }
    assert unknown == set()


def test_every_route_with_an_id_is_in_the_matrix() -> None:
    paths = {path for _, path in ROUTES}
    for expected in (
        "/api/instructor/submissions/{submission_id}/override",
        "/instructor/students/{user_id}",
        "/instructor/problems/{report_id}/resolve",
        "/api/instructor/students/{user_id}/password-link",
        "/instructor/exercises/{slug}/similar/{a}/{b}",
        "/api/assessments/attempts/{attempt_id}",
        "/api/instructor/lms/links/{context_id}",
        "/submissions/{submission_id}/figures/{name}.svg",
        "/api/submissions/{submission_id}/writeup",
        "/exercises/{slug}/results/{submission_id}/writeup",
        "/api/jobs/{job_id}",
        "/api/courses/{course}/authoring/checks/{job_id}",
        "/api/courses/{course}/authoring/runs/{job_id}",
        "/authoring/{course}/preview/exercises/{slug}/runs/{job_id}",
    ):
        assert expected in paths
    assert all(reason for reason in (*NOT_OBJECT_IDS.values(), *LEFT_OUT.values()))


@pytest.mark.parametrize("role", ROLES)
def test_no_route_reaches_another_places_object(client: TestClient, role: str) -> None:
    world = make_world()
    leaks: list[str] = []
    for place_name in PLACES:
        place = world.places[place_name]
        for method, path in ROUTES:
            url = _url(path, place, world.first)
            answer = client.request(
                method,
                url,
                headers=world.headers[role],
                follow_redirects=False,
                **_body(method, path, place),
            )
            said = answer.text
            if answer.status_code not in (403, 404) or any(s in said for s in place.secrets):
                leaks.append(f"{place_name} {method} {path}: {answer.status_code} {said[:120]}")
    assert leaks == [], "\n".join(leaks)


def test_the_matrix_size() -> None:
    size = len(ROUTES) * len(ROLES) * len(PLACES)
    print(f"matrix: {len(ROUTES)} routes x {len(ROLES)} roles x {len(PLACES)} places = {size}")
    assert len(ROUTES) >= 25
