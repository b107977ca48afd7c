"""The "grade recorded" and "account created" events: delivered once per subscriber, in the
recorder's transaction."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import events, hooks
from app.db import session_factory
from app.events import AccountCreated, GradeRecorded
from app.offerings.mine import membership_rows
from app.offerings.models import OfferingRole
from app.users.models import Role
from app.users.service import create_user

PASSWORD = "correct horse"


@pytest.fixture
def no_subscribers(monkeypatch: pytest.MonkeyPatch) -> list[events.GradeSubscriber]:
    """An empty subscriber list for this test; the process's own comes back afterwards."""
    subscribers: list[events.GradeSubscriber] = []
    monkeypatch.setattr(hooks.GRADE_RECORDED, "plugs", subscribers)
    return subscribers


def test_each_subscriber_hears_each_grade_once_with_the_recorders_session(
    data_dir: Path, no_subscribers: list[events.GradeSubscriber]
) -> None:
    heard: list[GradeRecorded] = []
    events.on_grade_recorded(heard.append)
    events.on_grade_recorded(heard.append)  # the web app may start twice in one process
    with session_factory()() as session:
        events.grade_recorded(session=session, user_id=7, kind="quiz", slug="why-position")
        assert heard == [
            GradeRecorded(session=session, user_id=7, kind="quiz", slug="why-position")
        ]


def test_a_failing_subscriber_fails_the_recording(
    data_dir: Path, no_subscribers: list[events.GradeSubscriber]
) -> None:
    def broken(event: GradeRecorded) -> None:
        raise RuntimeError("outbox unavailable")

    events.on_grade_recorded(broken)
    with session_factory()() as session, pytest.raises(RuntimeError, match="outbox unavailable"):
        events.grade_recorded(session=session, user_id=7, kind="exercise", slug="alibi-bias")


@pytest.fixture
def no_account_subscribers(monkeypatch: pytest.MonkeyPatch) -> list[events.AccountSubscriber]:
    """An empty account subscriber list for this test."""
    subscribers: list[events.AccountSubscriber] = []
    monkeypatch.setattr(hooks.ACCOUNT_CREATED, "plugs", subscribers)
    return subscribers


def test_each_account_subscriber_hears_each_new_account_once(
    data_dir: Path, no_account_subscribers: list[events.AccountSubscriber]
) -> None:
    heard: list[AccountCreated] = []
    events.on_account_created(heard.append)
    events.on_account_created(heard.append)
    with session_factory()() as session:
        user, created = create_user(session=session, email="ann@example.org", password=PASSWORD)
        assert created
        create_user(session=session, email="ann@example.org", password=PASSWORD)  # exists
        lms, _ = create_user(
            session=session, email="lms@example.org", password=PASSWORD, join_first_offering=False
        )
        assert heard == [
            AccountCreated(session=session, user_id=user.id, enrolled_by_creator=False),
            AccountCreated(session=session, user_id=lms.id, enrolled_by_creator=True),
        ]


def test_a_new_account_joins_the_first_offering_unless_its_creator_places_it(
    data_dir: Path,
) -> None:
    """Issue 46: no silent membership; an account created as an instructor (the command line's
    first instructor) teaches the first offering, unless its creator places it."""
    with session_factory()() as session:
        ann, _ = create_user(session=session, email="ann@example.org", password=PASSWORD)
        tess, _ = create_user(
            session=session, email="tess@example.org", password=PASSWORD, role=Role.instructor
        )
        lms, _ = create_user(
            session=session,
            email="lms@example.org",
            password=PASSWORD,
            role=Role.instructor,
            join_first_offering=False,
        )
        assert membership_rows(session=session, user_id=ann.id) == []
        assert [m.role for m in membership_rows(session=session, user_id=tess.id)] == [
            OfferingRole.instructor
        ]
        assert membership_rows(session=session, user_id=lms.id) == []
