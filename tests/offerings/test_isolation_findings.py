"""Issue 46's findings, each as the attack that worked before: A's staff reaching B's work."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import enroll
from app.progress.models import QuizAttempt
from app.submissions.models import Submission
from app.users.models import User
from tests.offerings.test_foreign_objects import World, make_world


def _both(world: World) -> tuple[int, int]:
    """B's first victim joins A too, with a submission in A; (their id, their A submission)."""
    victim = world.places["other_offering"].ids["user_id"]
    with session_factory()() as session:
        first = session.get(Offering, world.first)
        user = session.get(User, victim)
        assert first is not None and user is not None
        enroll(session=session, offering=first, user=user, role=OfferingRole.student)
        row = Submission(
            user_id=victim,
            exercise_slug="sinusoidal-positional-encoding",
            framework="numpy",
            mode="submit",
            code="# A_WORK\n",
            status="done",
            verdict="accepted",
            score=1.0,
            report={
                "verdict": "accepted",
                "score": 1.0,
                "message": "",
                "duration_ms": 1.0,
                "tests": [],
            },
            offering_id=world.first,
        )
        session.add(row)
        session.commit()
        return victim, row.id


def _score(submission_id: int) -> float | None:
    with session_factory()() as session:
        row = session.get(Submission, submission_id)
        assert row is not None
        return row.score


def test_a_ta_cannot_override_a_grade_of_another_offering(client: TestClient) -> None:
    world = make_world()
    target = world.places["other_offering"].ids["submission_id"]
    answer = client.post(
        f"/offerings/{world.first}/api/instructor/submissions/{target}/override",
        json={"score": 1.0, "reason": "taken over"},
        headers=world.headers["ta"],
    )
    assert answer.status_code == 404
    assert answer.json() == {"detail": "There is no submission with that id."}
    assert _score(target) == 0.5


def test_the_override_form_refuses_b_work_of_a_person_in_both(client: TestClient) -> None:
    world = make_world()
    _both(world)
    target = world.places["other_offering"].ids["submission_id"]
    answer = client.post(
        f"/offerings/{world.first}/instructor/submissions/{target}/override",
        data={"percent": "100", "reason": "taken over"},
        headers=world.headers["instructor"],
        follow_redirects=False,
    )
    assert answer.status_code == 404
    assert _score(target) == 0.5


def test_a_persons_page_shows_only_this_offerings_work(client: TestClient) -> None:
    world = make_world()
    victim, _ = _both(world)
    with session_factory()() as session:
        session.add(
            QuizAttempt(
                user_id=victim,
                lesson_slug="02-sinusoidal-encodings",
                answers={"q": "A_QUIZ"},
                results={},
                score=1.0,
                offering_id=world.first,
            )
        )
        session.commit()
        in_b = session.scalar(
            select(QuizAttempt.id).where(
                QuizAttempt.user_id == victim, QuizAttempt.offering_id != world.first
            )
        )
    assert in_b is not None
    page = client.get(
        f"/offerings/{world.first}/instructor/students/{victim}",
        headers=world.headers["instructor"],
    )
    assert page.status_code == 200
    assert "A_WORK" in page.text
    assert "SECRET_CODE_B" not in page.text
    assert "some-lesson" not in page.text  # B's quiz attempt
