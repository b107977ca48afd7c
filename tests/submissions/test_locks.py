"""Locks on hints, solutions and hidden tests come from the providers a higher layer registers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app import hooks
from app.assessments.locks import exam_lock
from app.db import session_factory
from app.submissions import locks
from app.submissions.locks import Lockable

NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)


def closed_hints(
    *,
    session: Session,
    user_id: int,
    course_slug: str,
    exercise_slug: str,
    what: Lockable,
    now: dt.datetime,
) -> str | None:
    """A provider that closes the hints of one exercise only."""
    return "Hints are closed." if what == "hints" and exercise_slug == "alibi-bias" else None


def test_the_first_provider_with_a_reason_answers(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    providers: list[locks.LockProvider] = []
    monkeypatch.setattr(hooks.LOCKS, "plugs", providers)
    with session_factory()() as session:
        args = {
            "session": session,
            "user_id": 1,
            "course_slug": "positional-embeddings",
            "exercise_slug": "alibi-bias",
            "now": NOW,
        }
        assert locks.lock_reason(**args, what="hints") is None  # nobody provides locks: all open
        locks.provide_locks(exam_lock)
        locks.provide_locks(closed_hints)
        locks.provide_locks(closed_hints)
        assert providers == [exam_lock, closed_hints]
        assert locks.lock_reason(**args, what="hints") == "Hints are closed."
        assert locks.lock_reason(**args, what="solutions") is None


def test_a_lock_closes_hidden_tests_on_every_page_not_only_the_api(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Why: the result and history pages ask `hidden_tests_open` directly; an exam's lock must
    # reach them too, or a student sees the hidden values the API keeps from her.
    import dataclasses

    from app.content.service import load_from_settings
    from app.submissions.models import Submission
    from app.submissions.service import hidden_tests_open
    from app.users.models import Role, User

    course = load_from_settings()
    exercise = course.exercises[0]
    shown = dataclasses.replace(
        exercise, meta=exercise.meta.model_copy(update={"hidden_tests": "visible"})
    )
    monkeypatch.setattr(
        course, "exercise", lambda slug: shown if slug == exercise.meta.slug else None
    )
    providers: list[locks.LockProvider] = []
    monkeypatch.setattr(hooks.LOCKS, "plugs", providers)
    student = User(id=7, email="s@example.org", name="S", password_hash="x", role=Role.student)
    row = Submission(user_id=7, exercise_slug=exercise.meta.slug, offering_id=None)
    with session_factory()() as session:
        args = {"session": session, "course": course, "user": student, "row": row, "now": NOW}
        assert hidden_tests_open(**args)  # visible, and nobody locks it

        def exam(
            *,
            session: Session,
            user_id: int,
            course_slug: str,
            exercise_slug: str,
            what: Lockable,
            now: dt.datetime,
        ) -> str | None:
            return "An exam is running." if what == "hidden_tests" and user_id == 7 else None

        locks.provide_locks(exam)
        assert not hidden_tests_open(**args)
