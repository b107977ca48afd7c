"""One student in two offerings of the course: each offering has its own attempts at an
assessment and its own accommodations (last term's do not use up or change this term's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db import session_factory
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.models import Role, User
from tests.assessments.conftest import exam, write
from tests.conftest import make_token

ACCOMMODATIONS = "/api/instructor/assessments/quick/accommodations"


def _bearer(email: str, role: Role) -> dict[str, str]:
    return {"Authorization": f"Bearer {make_token(email, role)}"}


def _id(email: str) -> int:
    with session_factory()() as session:
        found = session.query(User).filter(User.email == email).one()
        return found.id


def _two_offerings(*emails: tuple[str, OfferingRole]) -> tuple[int, int]:
    """The first offering (everyone joins it) and a second one these people are also in."""
    with session_factory()() as session:
        first = first_offering(session=session).id
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        for email, role in emails:
            user = session.get(User, _id(email))
            assert user is not None
            enroll(session=session, offering=spring, user=user, role=role)
        return first, spring.id


@pytest.fixture
def one_attempt(course_root: Path) -> Path:
    """The `quick` exam with one attempt (30 minutes, open for two hours)."""
    write(course_root, exam(attempts=1))
    return course_root


def _start(client: TestClient, offering: int, headers: dict[str, str]) -> dict[str, object]:
    started = client.post(f"/offerings/{offering}/api/assessments/quick/attempts", headers=headers)
    assert started.status_code == 201, started.text
    state: dict[str, object] = started.json()
    return state


def test_an_attempt_used_in_one_offering_leaves_the_other_its_own(one_attempt: Path) -> None:
    ann = _bearer("ann@example.org", Role.student)
    teacher = _bearer("t@example.org", Role.instructor)
    first, second = _two_offerings(
        ("ann@example.org", OfferingRole.student), ("t@example.org", OfferingRole.instructor)
    )
    with TestClient(create_app()) as client:
        last_term = _start(client, first, ann)
        client.post(f"/api/assessments/attempts/{last_term['id']}/submit", headers=ann)
        again = client.post(f"/offerings/{first}/api/assessments/quick/attempts", headers=ann)
        assert again.status_code == 409
        assert again.json()["detail"] == "You have used all 1 attempt at 'Quick exam'."

        this_term = _start(client, second, ann)  # last term's attempt is not this term's
        assert this_term["number"] == 1 and this_term["id"] != last_term["id"]
        client.post(f"/api/assessments/attempts/{this_term['id']}/submit", headers=ann)
        used = client.post(f"/offerings/{second}/api/assessments/quick/attempts", headers=ann)
        assert used.status_code == 409

        for offering in (first, second):  # each offering's staff see its attempt only
            page = client.get(
                f"/offerings/{offering}/instructor/assessments/quick", headers=teacher
            )
            assert page.status_code == 200, page.text
            assert page.text.count("<td>ann@example.org</td><td>1</td>") == 1
            assert "<td>ann@example.org</td><td>2</td>" not in page.text


def test_an_accommodation_applies_only_in_the_offering_it_was_given_in(one_attempt: Path) -> None:
    ann = _bearer("ann@example.org", Role.student)
    teacher = _bearer("t@example.org", Role.instructor)
    _bearer("bob@example.org", Role.student)  # in the first offering only
    first, second = _two_offerings(
        ("ann@example.org", OfferingRole.student), ("t@example.org", OfferingRole.instructor)
    )
    ann_id, bob_id = _id("ann@example.org"), _id("bob@example.org")
    with TestClient(create_app()) as client:

        def put(offering: int, user_id: int, minutes: int) -> int:
            url = f"/offerings/{offering}{ACCOMMODATIONS}/{user_id}"
            answer = client.put(url, json={"extra_minutes": minutes}, headers=teacher)
            return answer.status_code

        def extra(offering: int) -> list[object]:
            listed = client.get(f"/offerings/{offering}{ACCOMMODATIONS}", headers=teacher)
            assert listed.status_code == 200, listed.text
            return [row["extra_minutes"] for row in listed.json()]

        assert put(first, ann_id, 15) == 200
        assert extra(second) == []  # last term's extra time is not this term's
        assert put(second, ann_id, 5) == 200  # this term gives its own
        assert (extra(first), extra(second)) == ([15], [5])
        refused = client.put(
            f"/offerings/{second}{ACCOMMODATIONS}/{bob_id}",
            json={"extra_minutes": 5},
            headers=teacher,
        )
        assert refused.status_code == 404
        assert refused.json()["detail"] == f"There is no student with id {bob_id} in this offering."

        left = {
            offering: _start(client, offering, ann)["seconds_left"] for offering in (first, second)
        }
        assert isinstance(left[first], int) and 44 * 60 <= left[first] <= 45 * 60
        assert isinstance(left[second], int) and 34 * 60 <= left[second] <= 35 * 60

        delete = f"/offerings/{second}{ACCOMMODATIONS}/{ann_id}"
        assert client.delete(delete, headers=teacher).status_code == 204
        assert client.delete(delete, headers=teacher).status_code == 404
        assert (extra(first), extra(second)) == ([15], [])


def test_an_instructor_regrades_only_their_own_offerings_attempts(
    one_attempt: Path,
) -> None:
    """Regrade on one offering's exam page regraded every offering's (and every course's)
    attempts at that slug with this page's course; opening the page handed in other offerings'
    overdue attempts with it (the same condition now scopes both). Now each offering's staff
    touch their own attempts only."""
    from app.assessments.models import AssessmentAttempt

    ann = _bearer("ann@example.org", Role.student)
    bob = _bearer("bob@example.org", Role.student)
    _bearer("t@example.org", Role.instructor)  # instructor of the first offering only
    first, second = _two_offerings(("bob@example.org", OfferingRole.student))
    teacher = _bearer("t@example.org", Role.instructor)
    with TestClient(create_app()) as client:
        mine = _start(client, first, ann)
        client.post(f"/api/assessments/attempts/{mine['id']}/submit", headers=ann)
        handed = _start(client, second, bob)
        client.post(f"/api/assessments/attempts/{handed['id']}/submit", headers=bob)
        done = client.post(
            f"/offerings/{first}/instructor/assessments/quick/regrade",
            headers=teacher,
            follow_redirects=False,
        )
        assert done.status_code == 303, done.text
    with session_factory()() as session:
        rows = {a.id: a for a in session.query(AssessmentAttempt)}
        assert (rows[mine["id"]].results or {}).get("regraded") is True
        assert "regraded" not in (rows[handed["id"]].results or {})
