"""LMS launches enrol people into the offering linked to that LMS course, with the LMS's role."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiContext, LtiUser
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, role_in
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.platform import Platform

TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"


def _signed_in(client: TestClient, response: object) -> None:
    assert response.status_code == 303, response.text  # type: ignore[attr-defined]
    follow = client.get(response.headers["location"], follow_redirects=False)  # type: ignore[attr-defined]
    assert follow.status_code == 303, follow.text


def _roles(sub: str) -> dict[int, OfferingRole | None]:
    with session_factory()() as session:
        user_id = session.scalars(select(LtiUser.user_id).where(LtiUser.sub == sub)).one()
        return {o: role_in(session=session, user_id=user_id, offering_id=o) for o in (1, 2)}


def _link_context_to_a_new_offering() -> int:
    with session_factory()() as session:
        offering = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027, LMS"
        )
        context = session.scalars(select(LtiContext)).one()
        context.offering_id = offering.id
        session.commit()
        return offering.id


def test_a_launch_enrols_into_the_linked_offering_only(
    lti_client: TestClient, platform: Platform
) -> None:
    _signed_in(lti_client, launch(lti_client, platform, sub="t-1", roles=[LEARNER]))
    assert _roles("t-1") == {1: OfferingRole.student, 2: None}  # unlinked: the first offering
    linked = _link_context_to_a_new_offering()
    _signed_in(lti_client, launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR]))
    assert _roles("t-1") == {1: OfferingRole.student, 2: OfferingRole.instructor}
    assert lti_client.get("/instructor/gradebook").status_code == 403
    assert lti_client.get(f"/offerings/{linked}/instructor/gradebook").status_code == 200


def test_an_lms_teaching_assistant_is_a_ta_here(lti_client: TestClient, platform: Platform) -> None:
    _signed_in(lti_client, launch(lti_client, platform, sub="ta-1", roles=[TA]))
    assert _roles("ta-1") == {1: OfferingRole.ta, 2: None}
    assert lti_client.get("/instructor/gradebook").status_code == 200
    assert lti_client.get("/instructor/lti").status_code == 403


def test_the_lms_takes_back_a_role_it_gave(lti_client: TestClient, platform: Platform) -> None:
    _signed_in(lti_client, launch(lti_client, platform, sub="t-2", roles=[INSTRUCTOR]))
    assert _roles("t-2")[1] == OfferingRole.instructor
    _signed_in(lti_client, launch(lti_client, platform, sub="t-2", roles=[LEARNER]))
    assert _roles("t-2")[1] == OfferingRole.student
    assert lti_client.get("/instructor/gradebook").status_code == 403


def _csrf(page: str) -> str:
    return page.split('name="csrf_token" value="')[1].split('"')[0]


def test_the_lms_page_shows_and_changes_only_its_offerings_lms_courses(
    lti_client: TestClient, platform: Platform
) -> None:
    _signed_in(lti_client, launch(lti_client, platform, sub="t-2", roles=[INSTRUCTOR]))
    linked = _link_context_to_a_new_offering()
    with session_factory()() as session:  # another LMS course, feeding the first offering
        ours = session.scalars(select(LtiContext)).one()
        other = LtiContext(
            platform_id=ours.platform_id,
            deployment_id=ours.deployment_id,
            context_id="fall-course",
            title="Fall course in the LMS",
            offering_id=1,
        )
        session.add(other)
        session.commit()
        ours_id, other_id, ours_title = ours.id, other.id, ours.title
    _signed_in(lti_client, launch(lti_client, platform, sub="t-2", roles=[INSTRUCTOR]))
    base = f"/offerings/{linked}/instructor/lti"
    page = lti_client.get(base)
    assert page.status_code == 200
    assert ours_title in page.text and "Fall course in the LMS" not in page.text
    assert f'action="{base}/contexts/{ours_id}/policy"' in page.text
    csrf = _csrf(page.text)
    theirs = lti_client.post(
        f"{base}/contexts/{other_id}/policy", data={"policy": "latest", "csrf_token": csrf}
    )
    assert theirs.status_code == 404 and "no such LMS course in this offering" in theirs.text
    mine = lti_client.post(
        f"{base}/contexts/{ours_id}/policy",
        data={"policy": "latest", "csrf_token": csrf},
        follow_redirects=False,
    )
    assert mine.status_code == 303 and mine.headers["location"] == base
    with session_factory()() as session:
        policies = {c.id: c.score_policy for c in session.scalars(select(LtiContext))}
    assert policies == {ours_id: "latest", other_id: "best"}
