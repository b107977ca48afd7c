"""An admin's form sent twice at once where the first send makes the row (a double click on
Grant editor, Register LMS, Add course, Publish): both read "none yet" and both inserted it; the
second met the unique key and the admin got a 500. The second now reads the first's row."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.authoring.editors import grant
from app.authoring.models import CourseEditor
from app.courses.models import CourseFolder
from app.courses.store import add_folder, request_refresh
from app.db import session_factory
from app.lti.models import LtiDeployment, LtiPlatform
from app.lti.registry import register_platform
from app.users.service import create_user
from tests.races import inserting, other_request_before


def _grant(session: Session) -> None:
    grant(session=session, course_slug="attention", email="ed@example.org", by=None)


def _register(session: Session) -> None:
    register_platform(
        session=session,
        issuer="https://lms.example.org",
        client_id="tool-1",
        auth_url="https://lms.example.org/auth",
        token_url="https://lms.example.org/token",
        jwks_url="https://lms.example.org/jwks",
        deployment_id="d-1",
    )


def _add(session: Session) -> None:
    add_folder(session, slug="attention", folder=Path("/srv/courses/attention"))


def _publish(session: Session) -> None:
    request_refresh(session, slug="attention")


CASES: dict[str, tuple[Callable[[Session], None], str, list[type[Any]]]] = {
    "grant editor": (_grant, "course_editors", [CourseEditor]),
    "register LMS": (_register, "lti_platforms", [LtiPlatform, LtiDeployment]),
    "add course": (_add, "course_folders", [CourseFolder]),
    "publish": (_publish, "course_folders", [CourseFolder]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_admin_form_sent_twice_at_once_saves_once(
    client_on_each_database: TestClient, case: str
) -> None:
    act, table, models = CASES[case]
    with session_factory()() as session:
        create_user(session=session, email="ed@example.org", password="pw-12345678")
    with other_request_before(inserting(table), act) as ran, session_factory()() as session:
        act(session)
    with session_factory()() as session:
        counts = [session.scalar(select(func.count()).select_from(m)) for m in models]
    assert ran == [True] and counts == [1] * len(models)
