"""What the LMS holds must follow what the gradebook counts when staff move a date or change
the late policy after the grade was posted: both are computed from `Dates.counted`."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.deadlines.models import OfferingDue
from app.deadlines.policy import Policy, set_policy
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiPlatform
from app.models_base import as_utc, utcnow
from app.offerings.service import create_offering, first_offering
from app.users.models import Role
from tests.conftest import make_token
from tests.lti.conftest import LEARNER, launch
from tests.lti.helpers import EXERCISE, _all_sent, _graded_submission, _posts, _user_id, _wait
from tests.lti.platform import LTI, Platform

SLUG = "alibi-bias"
LATER = (utcnow() + dt.timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
PENALTY = {"mode": "penalty", "percent_per_day": 10, "max_percent": 100, "grace_minutes": 0}


def _due(due: dt.datetime, policy: Policy | None = None) -> None:
    """The item's own due date in the first offering, and its late policy if given."""
    with session_factory()() as session:
        oid = first_offering(session=session).id
        if policy is not None:
            set_policy(session=session, offering_id=oid, policy=policy, by=None)
        session.add(OfferingDue(offering_id=oid, kind="exercise", slug=SLUG, due_at=due))
        session.commit()


def _teacher() -> dict[str, str]:
    return {"Authorization": f"Bearer {make_token('teacher@example.org', Role.instructor)}"}


def _best(client: TestClient, teacher: dict[str, str], user_id: int) -> float:
    book = client.get("/api/instructor/gradebook", headers=teacher)
    assert book.status_code == 200, book.text
    row = next(r for r in book.json()["students"] if r["id"] == user_id)
    best: float = row["exercises"][SLUG]["best"]
    return best


def _posted_late(client: TestClient, platform: Platform, policy: Policy | None) -> int:
    """A student's 75% handed in 36 hours late (two started days) and sent to the LMS."""
    assert launch(client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    _due(utcnow() - dt.timedelta(hours=36), policy)
    student = _user_id("s-1")
    _graded_submission(student, 0.75)
    _wait(_all_sent)
    return student


def _lms_now() -> float:
    """The LMS's latest score, once every queued post went out."""
    _wait(_all_sent)
    sent = _posts()[-1].score_sent
    assert sent is not None
    return round(sent * 100, 4)


def test_an_extension_granted_after_the_post_reaches_the_lms(
    lti_client: TestClient, platform: Platform
) -> None:
    student = _posted_late(lti_client, platform, Policy("penalty", 10.0, 100.0, 0))
    assert [s["scoreGiven"] for s in platform.scores] == [60.0]
    teacher = _teacher()
    granted = lti_client.post(
        f"/api/instructor/students/{student}/extensions",
        json={"kind": "exercise", "slug": SLUG, "due": LATER, "reason": "illness"},
        headers=teacher,
    )
    assert granted.status_code == 200, granted.text
    assert _best(lti_client, teacher, student) == pytest.approx(0.75)  # no penalty any more
    assert _lms_now() == pytest.approx(75.0)
    assert platform.scores[-1]["scoreGiven"] == pytest.approx(75.0)


def test_an_extension_taken_back_reaches_the_lms(
    lti_client: TestClient, platform: Platform
) -> None:
    student = _posted_late(lti_client, platform, Policy("penalty", 10.0, 100.0, 0))
    teacher = _teacher()
    granted = lti_client.post(
        f"/api/instructor/students/{student}/extensions",
        json={"kind": "exercise", "slug": SLUG, "due": LATER},
        headers=teacher,
    )
    assert granted.status_code == 200, granted.text
    assert _lms_now() == pytest.approx(75.0)
    removed = lti_client.post(
        f"/instructor/students/{student}/extensions/{granted.json()['id']}/delete",
        headers=teacher,
        follow_redirects=False,
    )
    assert removed.status_code == 303, removed.text
    assert _best(lti_client, teacher, student) == pytest.approx(0.6)
    assert _lms_now() == pytest.approx(60.0)


def test_a_late_policy_set_after_the_post_reaches_the_lms(
    lti_client: TestClient, platform: Platform
) -> None:
    student = _posted_late(lti_client, platform, None)  # late, but accepted and flagged: 75
    assert [s["scoreGiven"] for s in platform.scores] == [75.0]
    teacher = _teacher()
    answer = lti_client.post("/api/instructor/late-policy", json=PENALTY, headers=teacher)
    assert answer.status_code == 200, answer.text
    assert _best(lti_client, teacher, student) == pytest.approx(0.6)  # "grades follow at once"
    assert _lms_now() == pytest.approx(60.0)
    assert platform.scores[-1]["scoreGiven"] == pytest.approx(60.0)


def test_a_due_date_moved_after_the_post_reaches_the_lms(
    lti_client: TestClient, platform: Platform
) -> None:
    student = _posted_late(lti_client, platform, Policy("penalty", 10.0, 100.0, 0))
    assert [s["scoreGiven"] for s in platform.scores] == [60.0]
    teacher = _teacher()
    moved = lti_client.post(
        "/api/instructor/due-dates",
        json={"kind": "exercise", "slug": SLUG, "due": LATER},
        headers=teacher,
    )
    assert moved.status_code == 200, moved.text
    assert _best(lti_client, teacher, student) == pytest.approx(0.75)
    assert _lms_now() == pytest.approx(75.0)


def test_a_post_held_for_later_stays_held_when_the_policy_changes(
    lti_client: TestClient, platform: Platform
) -> None:
    _posted_late(lti_client, platform, None)
    release = utcnow() + dt.timedelta(days=2)  # as an exam's post waits for its release
    with session_factory()() as session:
        sent = session.scalars(select(LtiGradePost)).one()
        session.add(
            LtiGradePost(
                link_id=sent.link_id, lti_user_id=sent.lti_user_id, next_attempt_at=release
            )
        )
        session.commit()
    answer = lti_client.post("/api/instructor/late-policy", json=PENALTY, headers=_teacher())
    assert answer.status_code == 200, answer.text
    held = [p for p in _posts() if p.status == "pending"]
    assert len(held) == 1  # no second post to send the score before then
    assert as_utc(held[0].next_attempt_at) == pytest.approx(release, abs=dt.timedelta(seconds=1))


def test_a_date_of_an_item_without_an_lms_column_posts_nothing(
    lti_client: TestClient, platform: Platform
) -> None:
    _posted_late(lti_client, platform, Policy("penalty", 10.0, 100.0, 0))
    with session_factory()() as session:
        assert session.scalars(select(LtiLink.slug)).all() == [SLUG]
    moved = lti_client.post(
        "/api/instructor/due-dates",
        json={"kind": "exercise", "slug": "rope-rotate", "due": LATER},
        headers=_teacher(),
    )
    assert moved.status_code == 200, moved.text
    assert len(_posts()) == 1  # only alibi-bias has a column in the LMS


def test_a_policy_posts_only_to_the_lms_courses_of_its_offering(
    lti_client: TestClient, platform: Platform
) -> None:
    _posted_late(lti_client, platform, None)
    with session_factory()() as session:  # a second offering, fed by the LMS course `course-2`
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
    other = {LTI + "context": {"id": "course-2", "title": "Transformers, spring"}}
    answer = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims={**EXERCISE, **other})
    assert answer.status_code == 303, answer.text
    changed = lti_client.post("/api/instructor/late-policy", json=PENALTY, headers=_teacher())
    assert changed.status_code == 200, changed.text
    with session_factory()() as session:
        posted = session.scalars(
            select(LtiContext.context_id)
            .join(LtiLink, LtiLink.context_id == LtiContext.id)
            .join(LtiGradePost, LtiGradePost.link_id == LtiLink.id)
            .order_by(LtiGradePost.id)
        ).all()
    assert posted == ["course-1", "course-1"]  # the grade, then the policy; spring gets none
