"""Every extension point of the app, declared in one place with its signature and its
transaction rule.

Why: lower floors (grading, submissions, quizzes, accounts) must not import the offerings,
assessments or LMS code that reacts to them. Each point below is a `Hook`: the lower floor calls
it, the upper floor plugs into it at start-up (`app/wiring.py`, a table), and the rule says
what a plug may do with the caller's database session.

Transaction rules:
- `IN_TRANSACTION`: runs inside the caller's open transaction; it may add, change and flush
  rows, never commit or roll back (the caller commits once, so a failure anywhere rolls the
  whole change back). `guarded` enforces it: a plug that commits fails.
- `AFTER_COMMIT`: runs after the caller committed what it tells of; it may write and commit
  work of its own with the session it is given.
- `READ_ONLY`: only reads; returns an answer.
- `OWN_SESSION`: runs outside any request with a session of its own, which it commits.
- `REGISTRY`: a value registered under a key (a kind of LMS item), looked up by the caller.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

Rule = Literal["in_transaction", "after_commit", "read_only", "own_session", "registry"]
IN_TRANSACTION: Rule = "in_transaction"
AFTER_COMMIT: Rule = "after_commit"
READ_ONLY: Rule = "read_only"
OWN_SESSION: Rule = "own_session"
REGISTRY: Rule = "registry"

P = TypeVar("P", bound=Callable[..., Any])
V = TypeVar("V")


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


@dataclass
class Registry(Generic[V]):
    """One keyed extension point: values registered under a key (the last one wins)."""

    name: str
    doc: str
    rule: Rule = REGISTRY
    plugs: dict[str, V] = field(default_factory=dict)

    def plug(self, key: str, value: V) -> None:
        """Register `value` under `key` from now on in this process."""
        self.plugs[key] = value

    def get(self, key: str) -> V | None:
        """The value registered under `key`, if any."""
        return self.plugs.get(key)

    def each(self) -> list[V]:
        """Every registered value, in the order registered."""
        return list(self.plugs.values())


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


# --- A grade was recorded ---------------------------------------------------------------


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
GRADE_RECORDED: Hook[GradeSubscriber] = Hook(
    "grade_recorded",
    "A grade was stored: the LMS outbox queues its post, an exam attempt settles its score.",
    IN_TRANSACTION,
)


def grade_recorded(
    *,
    session: Session,
    user_id: int,
    kind: Literal["exercise", "quiz"],
    slug: str,
    submission_id: int | None = None,
    purpose: str = "practice",
) -> None:
    """Tell every plug, in order, inside the recorder's transaction; an error in one (or a plug
    that commits) propagates to the recorder, whose transaction then rolls back whole."""
    event = GradeRecorded(
        session=session,
        user_id=user_id,
        kind=kind,
        slug=slug,
        submission_id=submission_id,
        purpose=purpose,
    )
    with guarded(session, GRADE_RECORDED):
        for plug in GRADE_RECORDED.each():
            plug(event)


# --- An account was created ---------------------------------------------------------------


@dataclass(frozen=True)
class AccountCreated:
    """A new account was stored (committed). `enrolled_by_creator`: the creator puts it in its
    offering itself (an LMS launch, a roster import), so no default placement applies."""

    session: Session
    user_id: int
    enrolled_by_creator: bool


AccountSubscriber = Callable[[AccountCreated], None]
ACCOUNT_CREATED: Hook[AccountSubscriber] = Hook(
    "account_created",
    "An account was stored: the offerings place it in the first offering.",
    AFTER_COMMIT,
)


def account_created(*, session: Session, user_id: int, enrolled_by_creator: bool) -> None:
    """Tell every plug, in order; an error in one propagates to the creator."""
    event = AccountCreated(
        session=session, user_id=user_id, enrolled_by_creator=enrolled_by_creator
    )
    for plug in ACCOUNT_CREATED.each():
        plug(event)


# --- Locks on an exercise's hints, solutions and hidden tests -----------------------------

Lockable = Literal["hints", "solutions", "hidden_tests"]


class LockProvider(Protocol):
    """Why `what` of this course's exercise (not another's of its slug) is closed now, or None."""

    def __call__(
        self,
        *,
        session: Session,
        user_id: int,
        course_slug: str,
        exercise_slug: str,
        what: Lockable,
        now: dt.datetime,
    ) -> str | None: ...


LOCKS: Hook[LockProvider] = Hook(
    "locks",
    "Why an exercise's hints, model solutions or hidden tests are closed to a student now.",
    READ_ONLY,
)


class CourseCheck(Protocol):
    """Problems (content `Problem`s) that this version of a course's lessons and exercises
    brings to the rest of its folder, e.g. an exam asking for a question it no longer has."""

    def __call__(self, course: Any, folder: Path, /) -> list[Any]: ...


COURSE_CHECKS: Hook[CourseCheck] = Hook(
    "course_checks",
    "What a new version of a course breaks outside its lessons and exercises (exams' items); "
    "a refresh or a publish that brings a new such problem is refused.",
    READ_ONLY,
)


def course_problems(course: Any, folder: Path) -> list[Any]:
    """Every plug's problems for this version of the course."""
    return [problem for check in COURSE_CHECKS.each() for problem in check(course, folder)]


class LinkRefusal(Protocol):
    """A sentence to refuse an instructor's set-password link with, or None to let it pass."""

    def __call__(self, session: Session, user: Any, /) -> str | None: ...


LINK_REFUSALS: Hook[LinkRefusal] = Hook(
    "link_refusals",
    "Why an instructor's set-password link may not be used on this account (a place elsewhere).",
    READ_ONLY,
)


# --- Scores of LMS items of other kinds, and the kinds LMS links may name -----------------


class ScoreReader(Protocol):
    """The 0..1 score an LMS receives for one person's item of a kind, or None (nothing yet),
    from the work done in one offering (None: the first)."""

    def __call__(
        self, *, session: Session, user_id: int, slug: str, policy: str, offering_id: int | None
    ) -> float | None: ...


SCORE_READERS: Registry[ScoreReader] = Registry(
    "score_readers",
    "By item kind: the score an LMS receives for kinds scored above the LMS code (assessments).",
)
# By kind: a `lti.linkables.LinkKind` (its folder, its course's items, whether it is graded).
LINK_KINDS: Registry[Any] = Registry(
    "link_kinds",
    "By item kind: the items LMS deep linking offers and launches open (assessments).",
)


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


Keys = Sequence[str]  # items of a course: `q:<lesson>/<id>`, `x:<exercise>`


class PracticeLock(Protocol):
    """Why practising these items of a course (`q:<lesson>/<id>`, `x:<exercise>`) is closed."""

    def __call__(
        self, *, session: Session, user_id: int, course_slug: str, keys: Keys, now: dt.datetime
    ) -> str | None: ...


PRACTICE_CLOSED: Hook[PracticeLock] = Hook(
    "practice_closed",
    "Why practising a quiz question or an exercise is closed to a student now (an exam holds "
    "it: running, open and not started, or handed in with scores not released yet).",
    READ_ONLY,
)


def practice_closed(
    *, session: Session, user_id: int, course_slug: str, keys: Keys, now: dt.datetime
) -> str | None:
    """The first plug's reason these items are closed to the student's practice (asked once)."""
    for plug in PRACTICE_CLOSED.each():
        why = plug(session=session, user_id=user_id, course_slug=course_slug, keys=keys, now=now)
        if why:
            return why
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


# --- Typed jobs of the queue --------------------------------------------------------------


class JobWork(Protocol):
    """Does one typed job in a worker (`run` is the `app.grading.tasks.TaskRun`: its claim, a
    progress callback and a session maker); returns what the job produced, stored on its row.
    It opens, commits and closes its own sessions; it may raise `app.jobs.tasks.JobFailed` to
    fail at once, any other error runs it again (up to the deployment's attempts)."""

    def __call__(self, run: Any, /) -> dict[str, Any] | None: ...


JOB_KINDS: Registry[JobWork] = Registry(
    "job_kinds",
    "By job kind: the work a worker does for a typed job of the queue (regrade, check, "
    "preview_run, lms_post, hand_in; a grade is the submission lifecycle itself).",
    OWN_SESSION,
)


class JobDue(Protocol):
    """Whether a background kind has work now (read only); the reaper queues its job only then."""

    def __call__(self, *, session: Session, now: dt.datetime) -> bool: ...


JOB_DUE: Registry[JobDue] = Registry(
    "job_due",
    "By background job kind (hand_in, lms_post): whether there is work now, so the reaper "
    "queues a job only when it has something to do.",
    READ_ONLY,
)


def declared() -> list[Hook[Any] | Registry[Any]]:
    """Every extension point of the app (documentation and tests read this)."""
    return [
        GRADE_RECORDED,
        ACCOUNT_CREATED,
        LOCKS,
        SCORE_READERS,
        LINK_KINDS,
        RESULT_HOLD,
        PRACTICE_CLOSED,
        BACKGROUND,
        JOB_KINDS,
        JOB_DUE,
    ]
