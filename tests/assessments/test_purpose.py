"""A submission knows why it exists: an exam's code is not practice, and waits for its release."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.deadlines.models import OfferingDue
from app.deadlines.policy import Policy, set_policy
from app.jobs.deps import get_queue
from app.lti.grades import score_for
from app.main import create_app
from app.offerings.service import first_offering
from app.submissions.models import Draft
from app.users.models import Role, User
from tests.assessments.conftest import write
from tests.assessments.world import (
    ANN,
    EXERCISE,
    TEACHER,
    Sitting,
    headers,
    link_lms,
    midterm,
    pending_posts,
    submissions,
)
from tests.jobs.helpers import RecordingQueue


@pytest.fixture
def client(course_root: Path) -> Iterator[TestClient]:
    write(course_root, midterm())
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: RecordingQueue()
    with TestClient(app) as client:
        yield client


def _ann_id() -> int:
    with session_factory()() as session:
        found = session.scalar(select(User.id).where(User.email == ANN))
        assert found is not None
        return int(found)


def test_the_exam_submission_says_which_attempt_it_belongs_to(client: TestClient) -> None:
    sitting = Sitting(client)
    sitting.reach("handed_in")
    [row] = submissions()
    assert row.purpose == f"attempt:{sitting.attempt}"
    assert row.late is False


def test_before_release_the_student_sees_no_verdict_or_score(client: TestClient) -> None:
    sitting = Sitting(client)
    sitting.reach("handed_in")
    ann = headers(ANN)
    listed = client.get(f"/api/submissions?exercise={EXERCISE}", headers=ann).json()
    assert listed == []
    one = client.get(f"/api/submissions/{sitting.submission}", headers=ann)
    assert one.status_code == 403
    assert set(one.json()) == {"detail"} and "accepted" not in one.text
    assert one.json()["detail"].startswith("This code is your answer in 'Midterm'")
    stream = client.get(f"/api/submissions/{sitting.submission}/events", headers=ann)
    assert stream.status_code == 403
    page = client.get(f"/submissions/{sitting.submission}", headers=ann)
    assert page.status_code == 403 and "Accepted" not in page.text
    history = client.get(f"/exercises/{EXERCISE}/history", headers=ann)
    assert history.status_code == 200
    assert f"/submissions/{sitting.submission}" not in history.text
    staff = client.get(
        f"/api/submissions/{sitting.submission}", headers=headers(TEACHER, Role.instructor)
    )
    assert staff.status_code == 200 and staff.json()["score"] == 1.0
    _staff_write(client, sitting.submission)
    # The result page, a lab's figures and the home page's notices hold it back too.
    result = client.get(f"/exercises/{EXERCISE}/results/{sitting.submission}", headers=ann)
    assert result.status_code == 403 and "Accepted" not in result.text
    assert "This code is your answer in" in result.text
    drawn = client.get(f"/submissions/{sitting.submission}/figures/loss.svg", headers=ann)
    assert drawn.status_code == 403
    home = client.get("/", headers=ann)
    assert COMMENT not in home.text and REASON not in home.text


COMMENT = "Your gather indexes the right axis."
REASON = "Full marks: the tolerance of that test was too tight."


def _staff_write(client: TestClient, submission_id: int | None) -> None:
    """A comment and an override, from the teacher, on the exam's code answer."""
    teacher = headers(TEACHER, Role.instructor)
    url = f"/api/instructor/submissions/{submission_id}"
    said = client.post(f"{url}/comments", json={"text": COMMENT}, headers=teacher)
    assert said.status_code in (200, 201), said.text
    moved = client.post(f"{url}/override", json={"score": 1.0, "reason": REASON}, headers=teacher)
    assert moved.status_code == 200, moved.text


def test_after_release_the_student_reads_it(client: TestClient) -> None:
    sitting = Sitting(client)
    sitting.reach("handed_in")
    _staff_write(client, sitting.submission)
    sitting.release()
    ann = headers(ANN)
    one = client.get(f"/api/submissions/{sitting.submission}", headers=ann)
    assert one.status_code == 200 and one.json()["score"] == 1.0
    result = client.get(f"/exercises/{EXERCISE}/results/{sitting.submission}", headers=ann)
    assert result.status_code == 200 and COMMENT in result.text
    home = client.get("/", headers=ann)
    assert COMMENT in home.text and REASON in home.text


def test_the_lms_exercise_column_and_progress_ignore_exam_code(client: TestClient) -> None:
    sitting = Sitting(client)
    sitting.start()
    link_lms()
    sitting.answer_all()
    sitting.hand_in()
    sitting.grade()
    assert pending_posts("exercise") == []
    with session_factory()() as session:
        args = {"session": session, "user_id": _ann_id(), "slug": EXERCISE, "policy": "best"}
        assert score_for(**args, kind="exercise") is None
    home = client.get("/api/exercises", headers=headers(ANN)).json()
    assert all(e.get("state", "untouched") != "solved" for e in home)
    page = client.get(f"/exercises/{EXERCISE}/history", headers=headers(ANN))
    assert "Solved" not in page.text


def test_exam_code_is_never_refused_nor_copied_by_the_practice_due_date(
    client: TestClient,
) -> None:
    sitting = Sitting(client)
    sitting.start()
    sitting.answer_all()
    with session_factory()() as session:  # practice was due yesterday; late work is refused
        offering = first_offering(session=session).id
        set_policy(session=session, offering_id=offering, policy=Policy("refuse"), by=None)
        yesterday = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
        session.add(
            OfferingDue(offering_id=offering, kind="exercise", slug=EXERCISE, due_at=yesterday)
        )
        session.commit()
    practice = client.post(
        "/api/submissions",
        json={"exercise": EXERCISE, "code": "x = 1", "framework": "numpy"},
        headers=headers(ANN),
    )
    assert practice.status_code == 409  # the exam is running: practice closed on its items
    sitting.hand_in()
    [row] = submissions()
    assert row.status == "queued" and row.late is False
    assert row.purpose == f"attempt:{sitting.attempt}"
    with session_factory()() as session:
        assert [d.code for d in session.scalars(select(Draft))] in ([], ["x = 1"])


def test_a_released_exam_answer_counts_by_the_exam_not_the_practice_dates(
    client: TestClient,
) -> None:
    sitting = Sitting(client)
    with session_factory()() as session:  # practice was due long ago, with a penalty
        offering = first_offering(session=session).id
        set_policy(
            session=session, offering_id=offering, policy=Policy("penalty", 50, 100), by=None
        )
        session.add(
            OfferingDue(
                offering_id=offering,
                kind="exercise",
                slug=EXERCISE,
                due_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
            )
        )
        session.commit()
    sitting.reach("released")
    seen = client.get(f"/api/submissions/{sitting.submission}", headers=headers(ANN)).json()
    assert seen["score"] == 1.0 and seen["counted_score"] == 1.0 and seen["late"] is False
    assert seen["due"] is None  # the practice due date is not this answer's
    asked = client.post(
        f"/api/submissions/{sitting.submission}/regrade-request",
        json={"text": "please"},
        headers=headers(ANN),
    )
    assert asked.status_code == 409 and "exam" in asked.json()["detail"]
