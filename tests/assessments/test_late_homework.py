"""Late work on assessments: exams close hard; homework follows the offering's late policy."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.orm import Session

from app.assessments import service
from app.assessments.gradebook import assessment_cells
from app.assessments.scoring import released_score
from app.assessments.service import LATE_HOMEWORK, AssessmentError
from app.content.loader import Course
from app.deadlines.policy import Policy, set_policy
from app.offerings.place import Place
from app.offerings.service import first_offering
from tests.assessments.test_service import CLOSES, POOL, Queue, course, session, start, student

__all__ = ["course", "session"]  # fixtures


def _policy(session: Session, policy: Policy) -> None:
    set_policy(
        session=session, offering_id=first_offering(session=session).id, policy=policy, by=None
    )


def test_an_exam_closes_hard_whatever_the_policy(session: Session, course: Course) -> None:
    _policy(session, Policy("penalty", 10, 50))
    ann = student(session)
    with pytest.raises(AssessmentError, match="closed at"):
        start(session, course, ann, CLOSES + dt.timedelta(minutes=1))


def test_refused_homework_names_its_due_date(session: Session, course: Course) -> None:
    _policy(session, Policy("refuse", grace_minutes=10))
    ann = student(session)
    homework = {"kind": "homework", "time_limit_minutes": None}
    during_grace = start(session, course, ann, CLOSES + dt.timedelta(minutes=5), **homework)
    assert service.as_utc(during_grace.deadline) == CLOSES + dt.timedelta(minutes=10)
    bob = student(session, "bob@example.org")
    with pytest.raises(AssessmentError) as refused:
        start(session, course, bob, CLOSES + dt.timedelta(minutes=11), **homework)
    assert refused.value.status == 409
    assert refused.value.message == (
        "This homework was due at 2026-12-14 12:00 UTC, and this course does not accept late "
        "work. Your instructor can grant you an extension."
    )


def test_late_homework_is_taken_and_penalised(session: Session, course: Course) -> None:
    _policy(session, Policy("penalty", 25, 50))
    ann = student(session)
    questions = [{"title": "Pool", "items": [{"question": q} for q in POOL[:2]]}]
    homework = {"kind": "homework", "time_limit_minutes": None, "parts": questions}
    late_start = CLOSES + dt.timedelta(days=1, hours=1)
    attempt = start(session, course, ann, late_start, **homework)
    assert service.as_utc(attempt.deadline) == CLOSES + LATE_HOMEWORK
    assert attempt.offering_id == first_offering(session=session).id
    service.finish_attempt(
        session=session,
        course=course,
        attempt=attempt,
        now=late_start,
        by="student",
        enqueue=Queue(),
    )
    cell = assessment_cells(
        session=session, slugs=["quick"], user_ids=[ann.id], place=Place(course)
    )[ann.id]["quick"]
    assert cell.late and cell.penalty == pytest.approx(0.5)  # two started days, 25% each
    assert cell.raw == attempt.score
    assert cell.best == pytest.approx((attempt.score or 0) * 0.5)


def test_the_lms_receives_late_homework_after_its_penalty_as_the_gradebook_counts_it(
    session: Session, course: Course
) -> None:
    _policy(session, Policy("penalty", 25, 50))
    ann = student(session)
    questions = [{"title": "Pool", "items": [{"question": q} for q in POOL[:2]]}]
    homework = {"kind": "homework", "time_limit_minutes": None, "parts": questions}
    late_start = CLOSES + dt.timedelta(days=1, hours=1)
    attempt = start(session, course, ann, late_start, **homework)
    service.save_answer(
        session=session,
        course=course,
        attempt=attempt,
        item_key="q:learned-absolute/table-shape",
        value="[max_len, d_model]",
        now=late_start,
        max_code_bytes=1000,
        enqueue=Queue(),
    )
    service.finish_attempt(
        session=session,
        course=course,
        attempt=attempt,
        now=late_start,
        by="student",
        enqueue=Queue(),
    )
    attempt.release_at = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)  # the LMS may read it
    session.commit()
    assert (attempt.score or 0) > 0
    cell = assessment_cells(
        session=session, slugs=["quick"], user_ids=[ann.id], place=Place(course)
    )[ann.id]["quick"]
    for policy in ("best", "latest"):
        sent = released_score(session=session, user_id=ann.id, slug="quick", policy=policy)
        assert sent == pytest.approx(cell.best)
        assert sent == pytest.approx((attempt.score or 0) * 0.5)
