"""LMS launches, deep linking and grade passback for the second course too (issue 47)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiContext, LtiLink
from app.offerings.models import Offering
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
