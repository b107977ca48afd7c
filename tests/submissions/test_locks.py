"""Locks on hints, solutions and hidden tests come from the providers a higher layer registers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.assessments.locks import exam_lock
from app.db import session_factory
from app.submissions import locks
from app.submissions.locks import Lockable

NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)


def closed_hints(
    *, session: Session, user_id: int, exercise_slug: str, what: Lockable, now: dt.datetime
) -> str | None:
    """A provider that closes the hints of one exercise only."""
    return "Hints are closed." if what == "hints" and exercise_slug == "alibi-bias" else None


def test_the_first_provider_with_a_reason_answers(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    providers: list[locks.LockProvider] = []
    monkeypatch.setattr(locks, "_providers", providers)
    with session_factory()() as session:
        args = {"session": session, "user_id": 1, "exercise_slug": "alibi-bias", "now": NOW}
        assert locks.lock_reason(**args, what="hints") is None  # nobody provides locks: all open
        locks.provide_locks(exam_lock)
        locks.provide_locks(closed_hints)
        locks.provide_locks(closed_hints)
        assert providers == [exam_lock, closed_hints]
        assert locks.lock_reason(**args, what="hints") == "Hints are closed."
        assert locks.lock_reason(**args, what="solutions") is None
