"""The "grade recorded" event: delivered once per subscriber, in the recorder's transaction."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import events
from app.db import session_factory
from app.events import GradeRecorded
from app.lti import outbox
from app.main import create_app


@pytest.fixture
def no_subscribers(monkeypatch: pytest.MonkeyPatch) -> list[events.GradeSubscriber]:
    """An empty subscriber list for this test; the process's own comes back afterwards."""
    subscribers: list[events.GradeSubscriber] = []
    monkeypatch.setattr(events, "_grade_subscribers", subscribers)
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


def test_the_web_app_subscribes_the_lms_outbox_when_it_starts(
    data_dir: Path, no_subscribers: list[events.GradeSubscriber]
) -> None:
    assert no_subscribers == []
    with TestClient(create_app()):
        assert no_subscribers == [outbox.post_recorded_grade]
