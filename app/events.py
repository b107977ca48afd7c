"""Domain events: "a grade was recorded", "an account was created", so the recorders need not
know who listens.

Why: grading and quizzes sit below `lti/` and `assessments/`, accounts below `offerings/`; those
subscribe here (`app/wiring.py`, called by every entry point) instead of being called from below.
Subscribers run synchronously, in the recorder's transaction, so a grade and what follows from it
are committed together.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from sqlalchemy.orm import Session


@dataclass(frozen=True)
class GradeRecorded:
    """A student's grade on an item changed: an exercise submission stored or overridden, a quiz
    attempt made. `session` is the recorder's open transaction (it commits, not the subscriber)."""

    session: Session
    user_id: int
    kind: Literal["exercise", "quiz"]
    slug: str
    submission_id: int | None = None  # the graded submission (exercise grades from the grader)
    purpose: str = "practice"  # the submission's: practice, or `attempt:<id>` (an exam's answer)


GradeSubscriber = Callable[[GradeRecorded], None]
_grade_subscribers: list[GradeSubscriber] = []


def on_grade_recorded(subscriber: GradeSubscriber) -> None:
    """Call `subscriber` for every grade recorded from now on in this process (once, however
    many times it is subscribed: the web app may start more than once in a process)."""
    if subscriber not in _grade_subscribers:
        _grade_subscribers.append(subscriber)


def grade_recorded(
    *,
    session: Session,
    user_id: int,
    kind: Literal["exercise", "quiz"],
    slug: str,
    submission_id: int | None = None,
    purpose: str = "practice",
) -> None:
    """Tell every subscriber, in order; an error in one propagates to the recorder (and rolls
    back its transaction), as the direct call it replaces did."""
    event = GradeRecorded(
        session=session,
        user_id=user_id,
        kind=kind,
        slug=slug,
        submission_id=submission_id,
        purpose=purpose,
    )
    for subscriber in list(_grade_subscribers):
        subscriber(event)


@dataclass(frozen=True)
class AccountCreated:
    """A new account was stored (committed). `enrolled_by_creator`: the creator puts it in its
    offering itself (an LMS launch, a roster import), so no default placement applies."""

    session: Session
    user_id: int
    enrolled_by_creator: bool


AccountSubscriber = Callable[[AccountCreated], None]
_account_subscribers: list[AccountSubscriber] = []


def on_account_created(subscriber: AccountSubscriber) -> None:
    """Call `subscriber` for every account created from now on in this process (once)."""
    if subscriber not in _account_subscribers:
        _account_subscribers.append(subscriber)


def account_created(*, session: Session, user_id: int, enrolled_by_creator: bool) -> None:
    """Tell every subscriber, in order; an error in one propagates to the creator."""
    event = AccountCreated(
        session=session, user_id=user_id, enrolled_by_creator=enrolled_by_creator
    )
    for subscriber in list(_account_subscribers):
        subscriber(event)
