"""Locks on an exercise's hints, model solutions and hidden tests, asked of whoever provides them.

Why: submissions and progress sit below assessments, whose running exams close these; they plug
their lock into `hooks.LOCKS` at start-up (`app/wiring.py`) instead of being imported from below.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from app.hooks import LOCKS, Lockable, LockProvider

__all__ = ["LockProvider", "Lockable", "lock_reason", "provide_locks"]


def provide_locks(provider: LockProvider) -> None:
    """Ask `provider` from now on in this process (once, however many times it is registered)."""
    LOCKS.plug(provider)


def lock_reason(
    *,
    session: Session,
    user_id: int,
    course_slug: str,
    exercise_slug: str,
    what: Lockable,
    now: dt.datetime,
) -> str | None:
    """The first provider's reason `what` of this course's exercise is closed to this student,
    or None."""
    for provider in LOCKS.each():
        reason = provider(
            session=session,
            user_id=user_id,
            course_slug=course_slug,
            exercise_slug=exercise_slug,
            what=what,
            now=now,
        )
        if reason:
            return reason
    return None
