"""The LMS grade outbox keeps its times on the database's clock, so clock jumps lose no grade."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.db import database_now, session_factory
from app.lti import grades
from app.lti.models import LtiGradePost
from tests.faults import jump_process_clock
from tests.lti.conftest import LEARNER, launch
from tests.lti.helpers import EXERCISE, _all_sent, _graded_submission, _posts, _user_id, _wait
from tests.lti.platform import Platform


def test_a_grade_recorded_by_a_process_whose_clock_runs_ahead_is_sent_at_once(
    lti_client: TestClient, platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert jump_process_clock(monkeypatch, dt.timedelta(hours=1)) > 0
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    _graded_submission(_user_id("s-1"), 0.75)
    _wait(_all_sent)  # not an hour later
    assert platform.scores[0]["scoreGiven"] == 75.0


def test_a_send_whose_lease_lies_beyond_any_lease_is_taken_again(
    lti_client: TestClient, platform: Platform
) -> None:
    assert launch(lti_client, platform, sub="s-2", roles=[LEARNER], claims=EXERCISE).status_code
    _graded_submission(_user_id("s-2"), 0.5)
    _wait(_all_sent)
    (post,) = _posts()
    # The process sending it died, and its lease was stamped a day ahead (the clock that
    # stamped it was set back since): waiting for that day would strand the grade.
    _lease(post.id, dt.timedelta(days=1))
    _wait(lambda: len(platform.scores) == 2 and _all_sent())
    # A lease within its length is left to its holder.
    _lease(post.id, dt.timedelta(seconds=grades.LEASE_SECONDS - 5))
    time.sleep(1.0)
    assert [p.status for p in _posts()] == ["sending"] and len(platform.scores) == 2


def _lease(post_id: int, ahead: dt.timedelta) -> None:
    with session_factory()() as session:
        now = database_now(session)
        session.execute(
            update(LtiGradePost)
            .where(LtiGradePost.id == post_id)
            .values(status="sending", next_attempt_at=now + ahead)
        )
        session.commit()
