"""Domain events: "a grade was recorded", so the recorders need not know who listens.

Why: grading and quizzes sit below `lti/`; its grade passback subscribes here (at start-up of the
web app and of `worker`) instead of being called from below. Subscribers run synchronously, in
the recorder's transaction, so a grade and what follows from it are committed together.
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


GradeSubscriber = Callable[[GradeRecorded], None]
_grade_subscribers: list[GradeSubscriber] = []


def on_grade_recorded(subscriber: GradeSubscriber) -> None:
    """Call `subscriber` for every grade recorded from now on in this process (once, however
    many times it is subscribed: the web app may start more than once in a process)."""
    if subscriber not in _grade_subscribers:
        _grade_subscribers.append(subscriber)


def grade_recorded(
    *, session: Session, user_id: int, kind: Literal["exercise", "quiz"], slug: str
) -> None:
    """Tell every subscriber, in order; an error in one propagates to the recorder (and rolls
    back its transaction), as the direct call it replaces did."""
    event = GradeRecorded(session=session, user_id=user_id, kind=kind, slug=slug)
    for subscriber in list(_grade_subscribers):
        subscriber(event)
