"""Locks on an exercise's hints, model solutions and hidden tests, asked of whoever provides them.

Why: submissions and progress sit below assessments, whose running exams close these; it
registers its lock here at start-up (`app/wiring.py`) instead of being imported from below.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal, Protocol

from sqlalchemy.orm import Session

Lockable = Literal["hints", "solutions", "hidden_tests"]


class LockProvider(Protocol):
    """Why `what` is closed to this student now, or None (a provider may know of no lock)."""

    def __call__(
        self,
        *,
        session: Session,
        user_id: int,
        exercise_slug: str,
        what: Lockable,
        now: dt.datetime,
    ) -> str | None: ...


_providers: list[LockProvider] = []


def provide_locks(provider: LockProvider) -> None:
    """Ask `provider` from now on in this process (once, however many times it is registered)."""
    if provider not in _providers:
        _providers.append(provider)


def lock_reason(
    *, session: Session, user_id: int, exercise_slug: str, what: Lockable, now: dt.datetime
) -> str | None:
    """The first provider's reason `what` of this exercise is closed to this student, or None."""
    for provider in list(_providers):
        reason = provider(
            session=session, user_id=user_id, exercise_slug=exercise_slug, what=what, now=now
        )
        if reason:
            return reason
    return None
