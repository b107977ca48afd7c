"""LMS launches, deep linking and grade passback for the second course too (issue 47)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiContext, LtiLink
from app.offerings.models import Enrollment, Offering
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.platform import LTI, Platform

SECOND = "attention-step-by-step"
BASE = f"/courses/{SECOND}"


def _landed(client: TestClient, response: object) -> str:
    assert response.status_code == 303, response.text  # type: ignore[attr-defined]
    hop = client.get(response.headers["location"], follow_redirects=False)  # type: ignore[attr-defined]
    assert hop.status_code == 303, hop.text
    return str(hop.headers["location"])


def test_a_link_to_split_heads_lands_on_it_with_a_graded_link(
    lti_client: TestClient, platform: Platform
) -> None:
    claims = {LTI + "target_link_uri": f"https://testserver{BASE}/exercises/split-heads"}
    response = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=claims)
    assert _landed(lti_client, response) == f"{BASE}/exercises/split-heads"
    with session_factory()() as session:
        assert session.scalars(select(LtiLink.slug)).all() == ["split-heads"]


def test_an_lms_course_that_feeds_the_second_course_launches_into_it(
    lti_client: TestClient, platform: Platform
) -> None:
    first = launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR])
    assert first.status_code == 303
    with session_factory()() as session:
        offering = Offering(course_slug=SECOND, title="Attention, spring")
        session.add(offering)
        session.flush()
        context = session.scalars(select(LtiContext)).one()
        context.offering_id = offering.id
        session.commit()
    claims = {LTI + "custom": {"target": "exercise:split-heads"}}
    response = launch(lti_client, platform, sub="s-2", roles=[LEARNER], claims=claims)
    assert _landed(lti_client, response) == f"{BASE}/exercises/split-heads"
    unknown = {LTI + "custom": {"target": "exercise:split-heads", "course": "nope"}}
    refused = launch(lti_client, platform, sub="s-2", roles=[LEARNER], claims=unknown)
    assert refused.status_code == 404 and "does not serve" in refused.text


def test_deep_linking_offers_and_links_the_second_courses_items(data_dir: object) -> None:
    from app.courses.service import process_registry, reset_process_registry
    from app.lti import deeplink, place
    from app.lti.models import LtiPlatform

    reset_process_registry()
    registry = process_registry()
    with session_factory()() as session:
        platform = LtiPlatform(
            issuer="https://lms.example", client_id="c", auth_url="a", token_url="t", jwks_url="j"
        )
        offering = Offering(course_slug=SECOND, title="Attention, spring")
        session.add_all([platform, offering])
        session.flush()
        session.add(
            LtiContext(
                platform_id=platform.id,
                deployment_id="d",
                context_id="ctx",
                offering_id=offering.id,
            )
        )
        session.commit()
        course = place.course_for(
            session=session,
            registry=registry,
            platform_id=platform.id,
            context_id="ctx",
            named=None,
        )
    assert course.slug == SECOND
    assert ("exercise", "split-heads") in {(c.kind, c.slug) for c in deeplink.choices(course)}
    [item] = deeplink.content_items(
        course,
        ["exercise:split-heads"],
        "https://tool.example/",
        kind=deeplink.RESOURCE_LINK,
        lineitem=True,
        base=place.base_of(course, registry),
    )
    assert item["url"] == f"https://tool.example{BASE}/exercises/split-heads"
    assert item["custom"] == {"target": "exercise:split-heads", "course": SECOND}
    assert "lineItem" in item


def test_a_new_lms_course_first_launched_into_the_second_course_feeds_its_offering(
    lti_client: TestClient, platform: Platform
) -> None:
    """An LMS course not yet linked to an offering feeds the first offering of the course its
    first launch works in, not the first course's: the student's work, roster and grades meet
    in one offering of the course they study."""
    claims = {LTI + "target_link_uri": f"https://testserver{BASE}/exercises/split-heads"}
    response = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=claims)
    assert _landed(lti_client, response) == f"{BASE}/exercises/split-heads"
    with session_factory()() as session:
        context = session.scalars(select(LtiContext)).one()
        fed = session.get(Offering, context.offering_id)
        assert fed is not None and fed.course_slug == SECOND
        members = session.scalars(
            select(Enrollment.offering_id).where(Enrollment.source == "lti")
        ).all()
        assert members == [fed.id]


def test_a_new_lms_course_of_the_second_course_receives_its_students_scores(
    lti_client: TestClient, platform: Platform
) -> None:
    """Where the LMS meets the second course: its first launch links it, the student's graded
    split-heads counts in that offering, and the LMS's column gets the score."""
    from app.grading import leases
    from app.offerings.service import offering_for_work
    from app.submissions.models import Submission
    from tests.lti.helpers import _all_sent, _user_id, _wait

    claims = {LTI + "custom": {"target": "exercise:split-heads", "course": SECOND}}
    response = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=claims)
    assert _landed(lti_client, response) == f"{BASE}/exercises/split-heads"
    student = _user_id("s-1")
    with session_factory()() as session:
        row = Submission(
            user_id=student,
            exercise_slug="split-heads",
            course_slug=SECOND,
            framework="numpy",
            mode="submit",
            code="x = 1",
            status="queued",
            offering_id=offering_for_work(
                session=session, user_id=student, course_slug=SECOND, named=None
            ),
        )
        session.add(row)
        session.commit()
        claim = leases.claim(session=session, submission_id=row.id, lease_seconds=30)
        assert claim is not None
        report = {"verdict": "partial", "score": 0.5, "message": "ok", "duration_ms": 1.0}
        assert leases.finish(session=session, held=claim, report=report)
    _wait(_all_sent)
    assert [s["scoreGiven"] for s in platform.scores] == [50.0]
