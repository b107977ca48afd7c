"""One LMS link opened twice at once (a double click, two tabs) by someone new here: both
launches read "no such LMS user" (or member, or enrolment) and both insert it. The second insert
met the unique constraint and that tab showed a 500 instead of the course.

The other tab's launch is run, whole and committed, on a connection of its own right before this
launch's insert into each table in turn: the account (stored with its LMS link in one
transaction), the LMS course (a whole class at its first launch: the other tab is a
classmate's), the membership in it, the enrolment and the graded link. This launch must still
land, on its own account, and every row must exist once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jwt
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.config import get_settings
from app.courses.service import app_registry
from app.db import session_factory
from app.lti.models import LtiContext, LtiLink, LtiMember, LtiPlatform, LtiUser
from app.lti.registry import register_platform
from app.lti.service import handle_launch
from app.main import create_app
from app.migrate import upgrade_head
from app.offerings.models import Enrollment
from app.users.models import User
from app.users.service import create_user
from tests.lti.conftest import LEARNER, launch, start_login
from tests.lti.platform import LTI, Platform
from tests.postgres import throwaway_database
from tests.races import inserting, other_request_before

EXERCISE = {LTI + "custom": {"target": "exercise:alibi-bias"}}
STAGES = ("users", "lti_contexts", "lti_members", "enrollments", "lti_links")


@pytest.fixture(params=["sqlite", "postgresql"])
def tabs(
    request: pytest.FixtureRequest, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, Platform]]:
    """The app and an LMS stand-in, on each database."""
    monkeypatch.setenv("LTI_FRAME_ANCESTORS", '["https://lms.invalid"]')
    get_settings.cache_clear()
    with Platform() as platform:
        if request.param == "postgresql":
            with throwaway_database(monkeypatch, data_dir):
                upgrade_head()
                yield from _serve(platform)
        else:
            yield from _serve(platform)


def _serve(platform: Platform) -> Iterator[tuple[TestClient, Platform]]:
    with session_factory()() as session:
        register_platform(session=session, **platform.registration())
    with TestClient(create_app(), base_url="https://testserver") as client:
        platform.fetch_tool_jwks = lambda: client.get("/lti/jwks").json()["keys"]
        platform.cached_tool_jwks()
        yield client, platform


def _other_tab_claims(client: TestClient, platform: Platform, sub: str) -> dict[str, Any]:
    """The claims of the other tab's launch, as the LMS signed them for its own login."""
    location = start_login(client, platform, sub)
    redirect_uri, form = platform.authorize(location, sub=sub, roles=[LEARNER], claims=EXERCISE)
    assert urlsplit(redirect_uri).path == "/lti/launch"
    claims: dict[str, Any] = jwt.decode(form["id_token"], options={"verify_signature": False})
    return claims


def _other_tab_launches(client: TestClient, claims: dict[str, Any]) -> Callable[[Session], None]:
    """The other tab's launch, on the session the race helper gives it."""
    registry = app_registry(client.app)
    course = registry.content(registry.first_slug)

    def run(session: Session) -> None:
        platform = session.scalar(select(LtiPlatform))
        assert platform is not None and course is not None
        handle_launch(session=session, course=course, platform=platform, claims=claims)

    return run


def _count(session: Session, model: type[Any], *where: Any) -> int:
    return int(session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


@pytest.mark.parametrize("stage", STAGES)
def test_a_launch_opened_twice_at_once_lands_once(
    tabs: tuple[TestClient, Platform], stage: str
) -> None:
    client, platform = tabs
    if stage != "lti_contexts":
        launch(client, platform, sub="first-of-class", roles=[LEARNER])  # the LMS course, no link
        client.cookies.clear()
    sub = "double-click"
    claims = _other_tab_claims(client, platform, "classmate" if stage == "lti_contexts" else sub)
    client.cookies.clear()
    with other_request_before(inserting(stage), _other_tab_launches(client, claims)) as ran:
        response = launch(client, platform, sub=sub, roles=[LEARNER], claims=EXERCISE)
    assert ran == [True], f"no insert into {stage} was seen"
    assert response.status_code == 303, response.text
    with session_factory()() as session:
        link = session.scalar(select(LtiUser).where(LtiUser.sub == sub))
        assert link is not None
        counts = {
            "accounts": _count(session, User, User.name == f"Person {sub}"),
            "lti_users": _count(session, LtiUser, LtiUser.sub == sub),
            "lti_members": _count(session, LtiMember, LtiMember.lti_user_id == link.id),
            "enrollments": _count(session, Enrollment, Enrollment.user_id == link.user_id),
            "lti_links": _count(session, LtiLink),
            "lti_contexts": _count(session, LtiContext),
        }
    assert counts == dict.fromkeys(counts, 1)
    page = client.get("/exercises/alibi-bias")
    assert f"Person {sub}" in page.text  # this tab is signed in, as the same person


def test_an_email_signed_up_meanwhile_is_never_linked_to_the_lms_person(
    tabs: tuple[TestClient, Platform],
) -> None:
    """Someone signs up with the LMS person's email between the launch's check and its insert:
    the launch makes an account of its own (a placeholder email), never the stranger's."""
    client, platform = tabs

    def sign_up(session: Session) -> None:
        create_user(session=session, email="taken@example.org", password="a-stranger-12")

    claims = {**EXERCISE, "email": "taken@example.org"}
    with other_request_before(inserting("users"), sign_up) as ran:
        response = launch(client, platform, sub="lms-person", roles=[LEARNER], claims=claims)
    assert ran == [True] and response.status_code == 303, response.text
    with session_factory()() as session:
        link = session.scalar(select(LtiUser).where(LtiUser.sub == "lms-person"))
        assert link is not None
        mine = session.get(User, link.user_id)
        assert mine is not None and mine.email.endswith("@lti.invalid")
        stranger = session.scalar(select(User).where(User.email == "taken@example.org"))
        assert stranger is not None and stranger.id != mine.id
