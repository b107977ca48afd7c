"""No global teaching role: `users.role = instructor` grants nothing; a role is held in an
offering (issue 46). Each test is an attack that worked while the global role acted as staff."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.db import session_factory
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.submissions.models import Submission
from app.users.models import Role, User
from app.users.service import create_user, issue_api_token

EXERCISE = "sinusoidal-positional-encoding"
SECOND = "attention-step-by-step"


def _person(
    email: str, role: Role, offering_id: int, held: OfferingRole
) -> tuple[int, dict[str, str]]:
    with session_factory()() as session:
        user, _ = create_user(
            session=session,
            email=email,
            password="correct horse",
            role=role,
            join_first_offering=False,
        )
        offering = session.get(Offering, offering_id)
        assert offering is not None
        enroll(session=session, offering=offering, user=user, role=held)
        return user.id, {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _offering(course: str = "positional-embeddings", title: str = "Section B") -> int:
    with session_factory()() as session:
        return create_offering(session=session, course_slug=course, title=title).id


def _first() -> int:
    with session_factory()() as session:
        return first_offering(session=session).id


def _global_instructor_student_of_b() -> tuple[int, dict[str, str]]:
    """The finding's person: `users.role = instructor` (an LMS launch elsewhere gave it), a
    student of offering B only."""
    return _person("holder@example.org", Role.instructor, _offering(), OfferingRole.student)


def test_a_global_instructor_student_gets_no_model_solution(client: TestClient) -> None:
    _, holder = _global_instructor_student_of_b()
    answer = client.get(f"/exercises/{EXERCISE}/solution", headers=holder)
    assert answer.status_code == 403


def test_a_global_instructor_student_sees_no_hidden_test_values(client: TestClient) -> None:
    user_id, holder = _global_instructor_student_of_b()
    report = {
        "verdict": "wrong_answer",
        "score": 0.0,
        "message": "",
        "duration_ms": 1.0,
        "tests": [
            {
                "name": "hidden 1",
                "hidden": True,
                "passed": False,
                "verdict": "wrong_answer",
                "message": "values differ",
                "inputs": {"max_len": 919191},
                "expected": "828282",
            }
        ],
    }
    with session_factory()() as session:
        row = Submission(
            user_id=user_id,
            exercise_slug=EXERCISE,
            framework="numpy",
            mode="submit",
            code="x = 1",
            status="done",
            verdict="wrong_answer",
            score=0.0,
            report=report,
        )
        session.add(row)
        session.commit()
        submission = row.id
    answer = client.get(f"/api/submissions/{submission}", headers=holder)
    assert answer.status_code == 200
    assert "919191" not in answer.text and "828282" not in answer.text
    page = client.get(f"/submissions/{submission}", headers=holder)
    assert page.status_code == 200
    assert "919191" not in page.text and "828282" not in page.text


def test_a_global_instructor_student_is_held_by_the_exam_lock(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, holder = _global_instructor_student_of_b()
    monkeypatch.setattr("app.site.history.lock_reason", lambda **_: "Your exam is running.")
    answer = client.get(f"/exercises/{EXERCISE}/solution", headers=holder)
    assert answer.status_code == 403
    assert "Your exam is running." in answer.text


def test_draft_items_are_for_the_courses_staff_only(app_client: TestClient) -> None:
    other = _offering()
    _, holder = _person("holder@example.org", Role.instructor, other, OfferingRole.student)
    _, teacher = _person("teacher@example.org", Role.student, _first(), OfferingRole.ta)
    assert app_client.get("/exercises/draft-one", headers=holder).status_code == 404
    assert app_client.get("/api/drafts/draft-one", headers=holder).status_code == 404
    assert app_client.get("/exercises/draft-one", headers=teacher).status_code == 200


def test_a_promotion_changes_one_offerings_role(client: TestClient) -> None:
    first, second_course = _first(), _offering(SECOND, "Attention, term 1")
    _, teacher = _person("teacher@example.org", Role.student, first, OfferingRole.instructor)
    student_id, student = _person("s@example.org", Role.student, first, OfferingRole.student)
    with session_factory()() as session:
        offering = session.get(Offering, second_course)
        user = session.get(User, student_id)
        assert offering is not None and user is not None
        enroll(session=session, offering=offering, user=user, role=OfferingRole.student)
    promoted = client.post(
        f"/offerings/{first}/instructor/students/{student_id}/role",
        data={"role": "instructor"},
        headers=teacher,
        follow_redirects=False,
    )
    assert promoted.status_code == 303
    solution = f"/courses/{SECOND}/exercises/scaled-dot-product-attention/solution"
    assert client.get(solution, headers=student).status_code == 403
    staff_b = f"/courses/{SECOND}/offerings/{second_course}/api/instructor/gradebook"
    assert client.get(staff_b, headers=student).status_code == 403
    # Under the first course's URL that offering is not one of its offerings at all.
    plain = client.get(f"/offerings/{second_course}/api/instructor/gradebook", headers=student)
    assert plain.status_code == 404
    with session_factory()() as session:
        user = session.get(User, student_id)
        assert user is not None and user.role == Role.student


def test_the_docs_say_how_roles_work_now() -> None:
    text = " ".join((Path(__file__).parents[2] / "docs" / "lti.md").read_text("utf-8").split())
    assert "still global" not in text
    assert "role in the offering" in text
