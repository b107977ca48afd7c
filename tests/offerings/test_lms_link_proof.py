"""Linking an LMS course needs proof of teaching it there: its instructor's launch, or a site
admin; an instructor of some offering cannot capture another teacher's LMS class."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiContext, LtiPlatform
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import create_offering, enroll
from app.users.models import User
from app.users.service import issue_api_token
from tests.lti.conftest import INSTRUCTOR, LEARNER
from tests.lti.platform import Platform
from tests.offerings.test_lms_link import NINE, _first, _person, _roles, _signed_in, _spring, _user

OPEN_IT = "Open this tool once from your LMS course as its instructor"
RELINK = "Only the instructors of the offering it was removed from, someone who opened this tool"
V2 = "http://purl.imsglobal.org/vocab/lis/v2/"


def _autumn() -> int:
    with session_factory()() as session:
        return create_offering(
            session=session, course_slug="positional-embeddings", title="Autumn 2027"
        ).id


def _teaching(sub: str, offering_id: int) -> dict[str, str]:
    """The LMS person of `sub` made a local instructor of that offering too; a bearer header."""
    with session_factory()() as session:
        user = session.get_one(User, _user(sub))
        offering = session.get_one(Offering, offering_id)
        enroll(session=session, offering=offering, user=user, role=OfferingRole.instructor)
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _ids(context_id: str) -> tuple[int, int]:
    """(LMS id, row id) of an LMS course seen here."""
    with session_factory()() as session:
        lms = session.scalars(select(LtiPlatform.id)).one()
        row = session.scalars(
            select(LtiContext.id).where(LtiContext.context_id == context_id)
        ).one()
        return lms, row


def _seen(client: TestClient, offering: int, headers: dict[str, str]) -> list[str]:
    answer = client.get(f"/offerings/{offering}/api/instructor/lms", headers=headers)
    assert answer.status_code == 200, answer.text
    return [c["context_id"] for c in answer.json()["seen"]]


def test_an_lms_course_feeding_no_offering_is_linked_only_by_who_taught_it_there(
    lti_client: TestClient, platform: Platform
) -> None:
    first, spring, autumn = _first(), _spring(), _autumn()
    _signed_in(lti_client, platform, "s-1", [LEARNER])  # a student of course-1
    _signed_in(lti_client, platform, "t-b", [INSTRUCTOR])  # B teaches course-1 in the LMS
    lms, course_1 = _ids("course-1")
    teacher_b = _teaching("t-b", autumn)
    removed = lti_client.delete(
        f"/offerings/{first}/api/instructor/lms/links/{course_1}", headers=teacher_b
    )
    assert removed.status_code == 200, removed.text  # course-1 feeds no offering now

    teacher_a = _person("a@example.org", {spring: OfferingRole.instructor})
    student_a = _teaching("s-1", spring)  # a student there, an instructor of spring here
    api = f"/offerings/{spring}/api/instructor/lms"
    for asker in (teacher_a, student_a):
        assert _seen(lti_client, spring, asker) == []
        for body, why in (
            ({"context": course_1}, RELINK),
            ({"platform": lms, "deployment_id": "dep-1", "context_id": "course-1"}, RELINK),
            ({"platform": lms, "deployment_id": "dep-1", "context_id": "course-9"}, OPEN_IT),
        ):
            taken = lti_client.post(f"{api}/links", json=body, headers=asker)
            assert taken.status_code == 403, (body, taken.text)
            assert why in taken.json()["detail"]
    page = lti_client.get(f"/offerings/{spring}/instructor/lms", headers=teacher_a)
    assert page.status_code == 200 and OPEN_IT in page.text
    assert 'name="context_id"' not in page.text  # typing ids is for site admins
    with session_factory()() as session:
        context = session.get_one(LtiContext, course_1)
        assert context.offering_id is None
        assert session.scalar(select(LtiContext).where(LtiContext.context_id == "course-9")) is None

    admin = _person("admin@example.org", {}, admin=True)
    assert _seen(lti_client, spring, admin) == ["course-1"]
    admin_page = lti_client.get(f"/offerings/{spring}/instructor/lms", headers=admin)
    assert 'name="context_id"' in admin_page.text
    assert _seen(lti_client, autumn, teacher_b) == ["course-1"]
    linked = lti_client.post(
        f"/offerings/{autumn}/api/instructor/lms/links",
        json={"context": course_1},
        headers=teacher_b,
    )
    assert linked.status_code == 200, linked.text
    assert [c["context_id"] for c in linked.json()["links"]] == ["course-1"]


def test_an_instructor_links_an_lms_course_once_they_opened_it_as_its_instructor(
    lti_client: TestClient, platform: Platform
) -> None:
    first, spring = _first(), _spring()
    _signed_in(lti_client, platform, "t-b", [INSTRUCTOR])  # course-1 feeds the first
    lms, course_1 = _ids("course-1")
    admin = _person("admin@example.org", {}, admin=True)
    typed = lti_client.post(
        f"/offerings/{spring}/api/instructor/lms/links",
        json={"platform": lms, "deployment_id": "dep-1", "context_id": "course-9"},
        headers=admin,
    )
    assert typed.status_code == 200, typed.text  # a site admin types one before its launch
    _signed_in(lti_client, platform, "t-a", [INSTRUCTOR], claims=NINE)  # A's own LMS course
    assert _roles("t-a", first, spring) == [None, OfferingRole.instructor]
    with session_factory()() as session:
        teacher_a_user = session.get_one(User, _user("t-a"))
        teacher_a = {
            "Authorization": f"Bearer {issue_api_token(session=session, user=teacher_a_user)}"
        }
    api = f"/offerings/{spring}/api/instructor/lms"
    assert _seen(lti_client, spring, teacher_a) == []
    refused = lti_client.post(f"{api}/links", json={"context": course_1}, headers=teacher_a)
    assert refused.status_code == 403

    # A opens the tool from course-1 as its instructor, then B removes its link: A may link it.
    _signed_in(lti_client, platform, "t-a", [INSTRUCTOR])
    removed = lti_client.delete(
        f"/offerings/{first}/api/instructor/lms/links/{course_1}", headers=admin
    )
    assert removed.status_code == 200
    assert _seen(lti_client, spring, teacher_a) == ["course-1"]
    moved = lti_client.post(f"{api}/links", json={"context": course_1}, headers=teacher_a)
    assert moved.status_code == 200, moved.text
    assert sorted(c["context_id"] for c in moved.json()["links"]) == ["course-1", "course-9"]


@pytest.mark.parametrize(
    ("roles", "teaches"),
    [
        ([INSTRUCTOR], True),
        ([V2 + "membership#Administrator"], True),
        (["urn:lti:role:ims/lis/Instructor"], True),
        ([LEARNER], False),
        ([V2 + "membership/Instructor#TeachingAssistant"], False),
        (["TeachingAssistant"], False),
        ([V2 + "membership#ContentDeveloper"], False),
        ([V2 + "institution/person#Instructor", LEARNER], False),
        ([], False),
    ],
)
def test_only_a_teaching_role_in_the_lms_course_proves_teaching_it(
    roles: list[str], teaches: bool
) -> None:
    from app.lti.accounts import teaches_context  # new with the rule: each test fails alone

    assert teaches_context(roles) is teaches
