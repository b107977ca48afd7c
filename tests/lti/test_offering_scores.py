"""What an LMS course receives is what its offering's gradebook shows: the offering's own work,
after the offering's late penalty."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.deadlines.models import OfferingDue
from app.deadlines.policy import Policy, set_policy
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiPlatform
from app.lti.outbox import queue_grade
from app.models_base import utcnow
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, first_offering, role_in
from app.submissions.models import Submission
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.helpers import EXERCISE, _all_sent, _graded_submission, _posts, _user_id, _wait
from tests.lti.platform import LTI, Platform

SLUG = "alibi-bias"
SPRING = {LTI + "context": {"id": "course-2", "title": "Transformers, spring"}}


def _first() -> int:
    with session_factory()() as session:
        return first_offering(session=session).id


def _penalty(offering_id: int, due: dt.datetime) -> None:
    """10% off per started day late, from `due`, in this offering."""
    with session_factory()() as session:
        set_policy(
            session=session,
            offering_id=offering_id,
            policy=Policy("penalty", 10.0, 100.0, 0),
            by=None,
        )
        session.add(OfferingDue(offering_id=offering_id, kind="exercise", slug=SLUG, due_at=due))
        session.commit()


def _gradebook_best(client: TestClient, user_id: int) -> float:
    book = client.get("/api/instructor/gradebook")
    assert book.status_code == 200, book.text
    row = next(r for r in book.json()["students"] if r["id"] == user_id)
    best: float = row["exercises"][SLUG]["best"]
    return best


def test_late_work_reaches_the_lms_with_the_gradebooks_penalty(
    lti_client: TestClient, platform: Platform
) -> None:
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    _penalty(_first(), utcnow() - dt.timedelta(hours=36))  # now: 2 started days late, 20% off
    student = _user_id("s-1")
    _graded_submission(student, 0.75)
    _wait(_all_sent)
    assert [s["scoreGiven"] for s in platform.scores] == [60.0]
    assert _posts()[0].score_sent == pytest.approx(0.6)
    launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR])
    assert _gradebook_best(lti_client, student) == pytest.approx(0.6)  # the same number


def test_work_on_time_reaches_the_lms_unchanged(lti_client: TestClient, platform: Platform) -> None:
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    _penalty(_first(), utcnow() + dt.timedelta(days=1))
    _graded_submission(_user_id("s-1"), 0.75)
    _wait(_all_sent)
    assert [s["scoreGiven"] for s in platform.scores] == [75.0]
    assert _posts()[0].score_sent == pytest.approx(0.75)


def _spring_linked_to_course_2() -> int:
    """A second offering, linked (before any launch) to the LMS course `course-2`."""
    with session_factory()() as session:
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        lms = session.scalars(select(LtiPlatform)).one()
        session.add(
            LtiContext(
                platform_id=lms.id,
                deployment_id="dep-1",
                context_id="course-2",
                offering_id=spring.id,
            )
        )
        session.commit()
        return spring.id


def _submitted(user_id: int, offering_id: int, score: float) -> None:
    with session_factory()() as session:
        session.add(
            Submission(
                user_id=user_id,
                exercise_slug=SLUG,
                framework="numpy",
                mode="submit",
                code="x = 1",
                status="done",
                score=score,
                offering_id=offering_id,
            )
        )
        session.commit()


def test_each_lms_course_gets_the_work_done_in_its_own_offering(
    lti_client: TestClient, platform: Platform
) -> None:
    first, spring = _first(), _spring_linked_to_course_2()
    for course in ({}, SPRING):  # the student launches from both LMS courses
        answer = launch(
            lti_client, platform, sub="s-1", roles=[LEARNER], claims={**EXERCISE, **course}
        )
        assert answer.status_code == 303, answer.text
    student = _user_id("s-1")
    with session_factory()() as session:
        assert role_in(session=session, user_id=student, offering_id=first) == OfferingRole.student
        assert role_in(session=session, user_id=student, offering_id=spring) == OfferingRole.student
    _submitted(student, first, 0.3)  # last term: a weak try
    _submitted(student, spring, 0.9)  # this term: a good one
    with session_factory()() as session:
        assert queue_grade(session=session, user_id=student, kind="exercise", slug=SLUG) == 2
        session.commit()
    _wait(_all_sent)
    with session_factory()() as session:
        sent = dict(
            session.execute(
                select(LtiContext.context_id, LtiGradePost.score_sent)
                .join(LtiLink, LtiLink.context_id == LtiContext.id)
                .join(LtiGradePost, LtiGradePost.link_id == LtiLink.id)
            ).all()
        )
    assert sent == {"course-1": pytest.approx(0.3), "course-2": pytest.approx(0.9)}
    assert sorted(s["scoreGiven"] for s in platform.scores) == [30.0, 90.0]
