"""Grading a cluster together: one rubric grading and comment reach every member submission of
the cluster in the request's offering, each as its own rubric grade that its student sees and
may ask to regrade; other clusters and other offerings are untouched."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.submissions.models import RubricGrade
from app.users.models import User
from tests.instructor.conftest import EXERCISE, person
from tests.instructor.test_clusters import _class
from tests.instructor.test_student_term import rubric_client
from tests.users.helpers import form_token, logged_in_client

__all__ = ["rubric_client"]
URL = f"/api/instructor/exercises/{EXERCISE}/clusters/abs/rubric"


def _graded() -> dict[int, RubricGrade]:
    with session_factory()() as session:
        return {g.submission_id: g for g in session.scalars(select(RubricGrade))}


def test_a_ta_grades_a_cluster_and_each_student_sees_their_own(
    rubric_client: TestClient, course_dir: Path
) -> None:
    client = rubric_client
    world = _class()
    ids = world["ids"]
    ta_id, ta = person("ta@example.org", "Tia")
    with session_factory()() as session:
        user = session.get(User, ta_id)
        assert user is not None
        enroll(
            session=session,
            offering=first_offering(session=session),
            user=user,
            role=OfferingRole.ta,
        )
    unknown = client.post(URL, json={"applied": ["essay"]}, headers=ta)
    assert unknown.status_code == 422 and _graded() == {}  # none graded, not some
    done = client.post(
        URL, json={"applied": ["vectorised"], "comment": "Off by one: see t=0."}, headers=ta
    )
    assert done.status_code == 200, done.text
    # Each student's latest submission in the group: Ann's second, Bob's, Cat's.
    assert sorted(done.json()["graded"]) == sorted([ids["ann2"], ids["bob"], ids["cat"]])
    graded = _graded()
    assert set(graded) == {ids["ann2"], ids["bob"], ids["cat"]}  # Dan's and Eve's group untouched
    assert all(
        g.comment == "Off by one: see t=0." and g.grader_name == "Tia" for g in graded.values()
    )
    bob_h = person_headers("bob@example.org")
    seen = client.get(f"/api/submissions/{ids['bob']}", headers=bob_h).json()
    assert seen["rubric"]["graded"] is True and seen["rubric"]["comment"] == "Off by one: see t=0."
    # tests 0.5, rubric 3/4 = 0.75, half each
    assert seen["score"] == 0.625
    teacher = world["teacher"]
    book = client.get("/api/instructor/gradebook", headers=teacher).json()
    [bob_row] = [r for r in book["students"] if r["id"] == world["users"]["bob"]]
    assert bob_row["exercises"][EXERCISE]["best"] == 0.625  # the gradebook counts it
    asked = client.post(
        f"/api/submissions/{ids['bob']}/regrade-request",
        json={"text": "I fixed t=0."},
        headers=bob_h,
    )
    assert asked.status_code == 201, asked.text
    assert (
        client.post(URL.replace("/abs/", "/nope/"), json={"applied": []}, headers=ta).status_code
        == 404
    )


def person_headers(email: str) -> dict[str, str]:
    from app.users.service import issue_api_token

    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == email))
        assert user is not None
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def test_a_ta_of_another_offering_finds_no_such_cluster(
    rubric_client: TestClient, course_dir: Path
) -> None:
    client = rubric_client
    _class()
    other_id, other = person("other@example.org", "Ota")
    with session_factory()() as session:
        spring = create_offering(
            session=session, course_slug=first_offering(session=session).course_slug, title="B"
        )
        user = session.get(User, other_id)
        assert user is not None
        enroll(session=session, offering=spring, user=user, role=OfferingRole.ta)
        spring_id = spring.id
    assert (
        client.post(
            f"/offerings/{spring_id}{URL}", json={"applied": ["vectorised"]}, headers=other
        ).status_code
        == 404
    )
    assert client.post(URL, json={"applied": ["vectorised"]}, headers=other).status_code == 403
    _, student = person("stu@example.org", "Stu")
    assert client.post(URL, json={"applied": ["vectorised"]}, headers=student).status_code == 403
    assert _graded() == {}


def test_the_clusters_page_grades_a_group_by_its_form(
    rubric_client: TestClient, course_dir: Path
) -> None:
    client = rubric_client
    world = _class()
    prof = logged_in_client(client, "prof@example.org", name="Prof")
    with session_factory()() as session:
        user = session.get(User, prof.id)
        assert user is not None
        enroll(
            session=session,
            offering=first_offering(session=session),
            user=user,
            role=OfferingRole.instructor,
        )
    page = client.get(f"/instructor/exercises/{EXERCISE}/clusters")
    assert page.status_code == 200 and "Grade this group together" in page.text
    action = f'action="/instructor/exercises/{EXERCISE}/clusters/abs/rubric"'
    assert action in page.text
    sent = client.post(
        f"/instructor/exercises/{EXERCISE}/clusters/abs/rubric",
        data={
            "csrf_token": form_token(page.text),
            "item": ["vectorised", "names"],
            "comment": "Good start",
        },
        follow_redirects=False,
    )
    assert sent.status_code == 303 and "graded=3" in sent.headers["location"]
    shown = client.get(sent.headers["location"])
    assert "Graded 3 submission(s) of the group" in shown.text
    assert set(_graded()) == {world["ids"]["ann2"], world["ids"]["bob"], world["ids"]["cat"]}
