"""Every extension point of the app, declared in one place with its signature and its
transaction rule.

Why: lower floors (grading, submissions, quizzes, accounts) must not import the offerings,
assessments or LMS code that reacts to them. Each point below is a `Hook`: the lower floor calls
it, the upper floor plugs into it at start-up (`app/wiring.py`, a table), and the rule says
what a plug may do with the caller's database session.

Transaction rules:
- `IN_TRANSACTION`: runs inside the caller's open transaction; it may add, change and flush
  rows, never commit or roll back (the caller commits once, so a failure anywhere rolls the
  whole change back). `dispatch` enforces it: a plug that commits fails.
- `READ_ONLY`: only reads; returns an answer.
- `OWN_SESSION`: runs outside any request with a session of its own, which it commits.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

Rule = Literal["in_transaction", "read_only", "own_session"]
IN_TRANSACTION: Rule = "in_transaction"
READ_ONLY: Rule = "read_only"
OWN_SESSION: Rule = "own_session"

P = TypeVar("P", bound=Callable[..., Any])


class HookBroken(RuntimeError):
    """A plug broke its hook's transaction rule (it committed or rolled back the caller's)."""


@dataclass
class Hook(Generic[P]):
    """One extension point: its name, what it is for, its rule, and the plugs in order."""

    name: str
    doc: str
    rule: Rule
    plugs: list[P] = field(default_factory=list)

    def plug(self, fn: P) -> None:
        """Call `fn` from now on in this process (once, however often it is plugged: the web
        app may start more than once in a process)."""
        if fn not in self.plugs:
            self.plugs.append(fn)

    def each(self) -> list[P]:
        """The plugs, in the order they were plugged."""
        return list(self.plugs)


@contextlib.contextmanager
def guarded(session: Session, hook: Hook[Any]) -> Iterator[None]:
    """Refuse a commit or a rollback of `session` while `hook`'s plugs run in its transaction."""

    def refuse(*_: object, **__: object) -> None:
        raise HookBroken(
            f"a plug of '{hook.name}' tried to end the caller's transaction; "
            "it runs inside it and must only add, change or flush rows"
        )

    saved = session.__dict__.get("commit"), session.__dict__.get("rollback")
    session.commit = refuse  # type: ignore[method-assign]
    session.rollback = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        for name, old in zip(("commit", "rollback"), saved, strict=True):
            if old is None:
                session.__dict__.pop(name, None)
            else:
                session.__dict__[name] = old


# --- Results held from their student ------------------------------------------------------


class ResultHold(Protocol):
    """Why this submission's verdict and score are not shown to its student now, or None."""

    def __call__(
        self, *, session: Session, purpose: str, user_id: int, now: dt.datetime
    ) -> str | None: ...


RESULT_HOLD: Hook[ResultHold] = Hook(
    "result_hold",
    "Why a submission's verdict and score are held from its student now (an exam's answer "
    "before its release).",
    READ_ONLY,
)


def result_held(*, session: Session, purpose: str, user_id: int, now: dt.datetime) -> str | None:
    """The first plug's reason this submission's result is held from its student, or None."""
    for plug in RESULT_HOLD.each():
        reason = plug(session=session, purpose=purpose, user_id=user_id, now=now)
        if reason:
            return reason
    return None


# --- Practice closed on an item -----------------------------------------------------------


class PracticeLock(Protocol):
    """Why practising this item (`q:<lesson>/<id>` or `x:<exercise>`) is closed to this student
    now, or None."""

    def __call__(
        self, *, session: Session, user_id: int, item_key: str, now: dt.datetime
    ) -> str | None: ...


PRACTICE_CLOSED: Hook[PracticeLock] = Hook(
    "practice_closed",
    "Why practising a quiz question or an exercise is closed to a student now (a running exam "
    "holds it).",
    READ_ONLY,
)


def practice_closed(
    *, session: Session, user_id: int, item_keys: list[str], now: dt.datetime
) -> str | None:
    """The first reason one of these items is closed to practice for this student, or None."""
    for key in item_keys:
        for plug in PRACTICE_CLOSED.each():
            reason = plug(session=session, user_id=user_id, item_key=key, now=now)
            if reason:
                return reason
    return None


# --- The background pass ------------------------------------------------------------------


class BackgroundTask(Protocol):
    """Work the server does on its own clock, once per reaper pass; returns how many things it
    did (handed in, sent...). It opens, commits and closes its own sessions."""

    def __call__(
        self,
        *,
        session_maker: Callable[[], Session],
        now: dt.datetime,
        enqueue: Callable[[int], None],
    ) -> int: ...


BACKGROUND: Hook[BackgroundTask] = Hook(
    "background",
    "Work kept by the server's clock, not by page reads (overdue exam attempts handed in).",
    OWN_SESSION,
)


def run_background(
    *, session_maker: Callable[[], Session], now: dt.datetime, enqueue: Callable[[int], None]
) -> dict[str, int]:
    """Run every background task once (`enqueue` sends a submission to the graders); what each
    did, by its name. A failing task does not stop the others; its error is logged."""
    done: dict[str, int] = {}
    for task in BACKGROUND.each():
        name = getattr(task, "__qualname__", repr(task))
        try:
            done[name] = task(session_maker=session_maker, now=now, enqueue=enqueue)
        except Exception:  # the next pass tries again
            log.exception("background task %s failed", name)
    return done


def declared() -> list[Hook[Any]]:
    """Every extension point of the app (documentation and tests read this)."""
    return [RESULT_HOLD, PRACTICE_CLOSED, BACKGROUND]
