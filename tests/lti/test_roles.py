"""Roles from real launches: who becomes an instructor, who stops being one, and refused
launches that must leave nothing behind."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db import session_factory
from app.lti.models import LtiContext, LtiMember, LtiPlatform, LtiUser
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, first_offering, role_in
from app.submissions.models import Submission
from app.users.models import Role, User
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.platform import LTI, Platform
from tests.users.helpers import form_token

EXERCISE = {LTI + "custom": {"target": "exercise:alibi-bias"}}
TEACHES_ELSEWHERE = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"
LEARNER_SUB_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership/Learner#Instructor"


def _account(sub: str) -> User:
    with session_factory()() as session:
        user_id = session.scalars(select(LtiUser.user_id).where(LtiUser.sub == sub)).one()
        user = session.get(User, user_id)
        assert user is not None
        session.expunge(user)
        return user


def _signed_in(client: TestClient, response: object) -> None:
    assert response.status_code == 303, response.text  # type: ignore[attr-defined]
    follow = client.get(response.headers["location"], follow_redirects=False)  # type: ignore[attr-defined]
    assert follow.status_code == 303, follow.text


def _own_submission(user_id: int, score: float) -> int:
    with session_factory()() as session:
        row = Submission(
            user_id=user_id,
            exercise_slug="alibi-bias",
            framework="numpy",
            mode="submit",
            code="x = 1",
            status="done",
            verdict="wrong_answer",
            score=score,
        )
        session.add(row)
        session.commit()
        return row.id


@pytest.mark.parametrize("roles", [[TEACHES_ELSEWHERE, LEARNER], [LEARNER_SUB_ROLE]])
def test_a_student_who_teaches_elsewhere_gets_no_instructor_pages(
    lti_client: TestClient, platform: Platform, roles: list[str]
) -> None:
    """The reproduction from the issue: the student tries to raise their own 7% to 100%."""
    response = launch(lti_client, platform, sub="s-teach", roles=roles, claims=EXERCISE)
    _signed_in(lti_client, response)
    assert _account("s-teach").role == Role.student
    assert lti_client.get("/instructor/gradebook").status_code == 403
    submission = _own_submission(_account("s-teach").id, 0.07)
    page = lti_client.get("/exercises/alibi-bias")
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token is not None
    raised = lti_client.post(
        f"/api/instructor/submissions/{submission}/override",
        json={"score": 1.0, "reason": "mine"},
        headers={"x-csrf-token": token.group(1)},
    )
    assert raised.status_code == 403
    with session_factory()() as session:
        row = session.get(Submission, submission)
        assert row is not None and row.override_score is None


def _role_here(sub: str, offering_id: int | None = None) -> OfferingRole | None:
    """The LMS user's role in an offering (the first when none is named)."""
    with session_factory()() as session:
        where = first_offering(session=session).id if offering_id is None else offering_id
        return role_in(session=session, user_id=_account(sub).id, offering_id=where)


def test_an_lms_instructor_role_is_taken_back_when_the_lms_says_learner(
    lti_client: TestClient, platform: Platform
) -> None:
    _signed_in(lti_client, launch(lti_client, platform, sub="t-2", roles=[INSTRUCTOR]))
    assert _role_here("t-2") == OfferingRole.instructor
    assert _account("t-2").role == Role.student  # no global role
    assert lti_client.get("/instructor/gradebook").status_code == 200
    _signed_in(lti_client, launch(lti_client, platform, sub="t-2", roles=[LEARNER]))
    assert _role_here("t-2") == OfferingRole.student
    assert lti_client.get("/instructor/gradebook").status_code == 403


def test_an_lms_instructor_launch_gives_a_role_only_where_its_course_feeds(
    lti_client: TestClient, platform: Platform
) -> None:
    """Issue 46: teaching LMS course 2 (linked to offering B of the other course) makes an
    instructor of B only; in the first offering, which LMS course 1 feeds, the person stays a
    student: no staff pages and no model solutions there."""
    with session_factory()() as session:
        other = create_offering(
            session=session, course_slug="attention-step-by-step", title="Attention, term 1"
        ).id
        platform_row = session.scalar(select(LtiPlatform))
        assert platform_row is not None
        session.add(
            LtiContext(
                platform_id=platform_row.id,
                deployment_id="dep-1",
                context_id="course-2",
                title="Another course",
                offering_id=other,
            )
        )
        session.commit()
    _signed_in(lti_client, launch(lti_client, platform, sub="t-3", roles=[LEARNER]))
    course2 = {LTI + "context": {"id": "course-2", "title": "Another course"}}
    _signed_in(
        lti_client, launch(lti_client, platform, sub="t-3", roles=[INSTRUCTOR], claims=course2)
    )
    assert _role_here("t-3", other) == OfferingRole.instructor
    assert _role_here("t-3") == OfferingRole.student
    book = f"/courses/attention-step-by-step/offerings/{other}/api/instructor/gradebook"
    assert lti_client.get(book).status_code == 200
    assert lti_client.get("/instructor/gradebook").status_code == 403
    assert lti_client.get("/exercises/alibi-bias/solution").status_code == 403


def test_a_role_set_here_is_never_taken_back_by_a_launch(
    lti_client: TestClient, platform: Platform
) -> None:
    """An instructor confirms an LMS-given role on the students page: it is then local."""
    _signed_in(lti_client, launch(lti_client, platform, sub="s-6", roles=[INSTRUCTOR]))
    student = _account("s-6").id
    _signed_in(lti_client, launch(lti_client, platform, sub="t-6", roles=[INSTRUCTOR]))
    page = lti_client.get(f"/instructor/students/{student}").text
    token = form_token(page.split("/role", 1)[1])
    promoted = lti_client.post(
        f"/instructor/students/{student}/role",
        data={"csrf_token": token, "role": "instructor"},
        follow_redirects=False,
    )
    assert promoted.status_code == 303
    _signed_in(lti_client, launch(lti_client, platform, sub="s-6", roles=[LEARNER]))
    assert _role_here("s-6") == OfferingRole.instructor


def _rows() -> tuple[int, int, int, int]:
    with session_factory()() as session:
        return (
            session.scalar(select(func.count()).select_from(User)) or 0,
            session.scalar(select(func.count()).select_from(LtiUser)) or 0,
            session.scalar(select(func.count()).select_from(LtiContext)) or 0,
            session.scalar(select(func.count()).select_from(LtiMember)) or 0,
        )


@pytest.mark.parametrize(
    ("claims", "status", "text"),
    [
        (
            {LTI + "message_type": "LtiDeepLinkingRequest"},
            403,
            "Only instructors can add course content",
        ),
        ({LTI + "custom": {"target": "exercise:does-not-exist"}}, 404, "does-not-exist"),
    ],
)
def test_a_refused_launch_creates_no_account_context_or_membership(
    lti_client: TestClient,
    platform: Platform,
    claims: dict[str, object],
    status: int,
    text: str,
) -> None:
    before = _rows()
    refused = launch(lti_client, platform, sub="s-7", roles=[LEARNER], claims=claims)
    assert refused.status_code == status and text in refused.text
    assert _rows() == before
    assert not any(c.startswith("session=") for c in refused.headers.get_list("set-cookie"))
