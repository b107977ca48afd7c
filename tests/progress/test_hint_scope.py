"""The staff's count of opened hints is their own offering's students': it counted every
student of every offering and course who opened the exercise's hints."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.db import session_factory
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.service import create_user, issue_api_token
from tests.users.helpers import PASSWORD, login

FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
SLUG = {FIRST: "position-embedding-gather", SECOND: "split-heads"}
BASE = {FIRST: "", SECOND: f"/courses/{SECOND}"}


def _offering(course: str, *, new: bool = False) -> int:
    with session_factory()() as session:
        if new:
            return create_offering(session=session, course_slug=course, title="Section B").id
        found = first_offering(session=session, course_slug=course).id
        session.commit()  # a course's first offering is made on first use
        return found


def _member(email: str, offering_id: int, role: OfferingRole) -> dict[str, str]:
    """An account with this one role (no other place), and its bearer header."""
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email=email, password=PASSWORD, join_first_offering=False
        )
        offering = session.get(Offering, offering_id)
        assert offering is not None
        enroll(session=session, offering=offering, user=user, role=role)
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _open_hints(client: TestClient, email: str, course: str, count: int) -> None:
    """Log in as the student and press the exercise page's Show hint button `count` times."""
    assert login(client, email).status_code == 303
    url = f"{BASE[course]}/exercises/{SLUG[course]}"
    for _ in range(count):
        form = client.get(url).text.split(f'action="{url}/hints"', 1)[1]
        token = re.search(r'name="csrf_token" value="([^"]+)"', form)
        assert token is not None
        sent = client.post(f"{url}/hints", data={"csrf_token": token[1]}, follow_redirects=False)
        assert sent.status_code == 303
    client.cookies.clear()


def _reveals(client: TestClient, url: str, headers: dict[str, str]) -> list[int]:
    answer = client.get(url, headers=headers)
    assert answer.status_code == 200, answer.text
    return [r["students"] for r in answer.json()["hint_reveals"][:2]]


def test_each_offering_counts_its_own_students_hints(client_on_each_database: TestClient) -> None:
    client = client_on_each_database
    first, second = _offering(FIRST), _offering(FIRST, new=True)
    _member("a@example.org", first, OfferingRole.student)
    _member("b@example.org", second, OfferingRole.student)
    teacher = _member("t1@example.org", first, OfferingRole.instructor)
    other = _member("t2@example.org", second, OfferingRole.instructor)
    _open_hints(client, "a@example.org", FIRST, 1)
    _open_hints(client, "b@example.org", FIRST, 2)
    api = f"/api/instructor/exercises/{SLUG[FIRST]}/analytics"
    assert _reveals(client, api, teacher) == [1, 0]
    assert _reveals(client, f"/offerings/{second}{api}", other) == [1, 1]
    page = client.get(f"/instructor/exercises/{SLUG[FIRST]}", headers=teacher).text
    assert '<th scope="row">Hint 1</th><td>1</td>' in page
    assert '<th scope="row">Hint 2</th><td>0</td>' in page


def test_a_course_counts_its_own_students_hints(client: TestClient) -> None:
    theirs, ours = _offering(FIRST), _offering(SECOND)
    _member("a@example.org", theirs, OfferingRole.student)
    _member("c@example.org", ours, OfferingRole.student)
    teacher = _member("t3@example.org", ours, OfferingRole.instructor)
    _open_hints(client, "a@example.org", SECOND, 2)  # the exercise is public; they are not ours
    _open_hints(client, "c@example.org", SECOND, 1)
    api = f"/api/courses/{SECOND}/instructor/exercises/{SLUG[SECOND]}/analytics"
    assert _reveals(client, api, teacher) == [1, 0]
