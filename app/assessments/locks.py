"""What a running attempt closes (hints, solutions, hidden tests, practice of its own items),
what an open exam closes to a student who has not started it, and what an attempt holds back
until its release (the verdict of its handed-in code)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import (
    JSON,
    BindParameter,
    DateTime,
    String,
    bindparam,
    cast,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from app.assessments.loader import assessments_for
from app.assessments.models import Accommodation, AssessmentAttempt
from app.assessments.schema import AssessmentFile
from app.courses.service import process_registry
from app.db import read_rows
from app.models_base import as_utc
from app.offerings.standing import exempt_from_exams
from app.submissions.locks import Lockable
from app.submissions.models import attempt_of
from app.users.models import User

WORDS = {"hints": "Hints", "solutions": "Model solutions", "hidden_tests": "Hidden tests"}


class _Attempt(Protocol):
    """What the locks read of an attempt (a stored one, or a row of the standing)."""

    @property
    def assessment_slug(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def deadline(self) -> dt.datetime: ...
    @property
    def release_at(self) -> dt.datetime | None: ...
    @property
    def rules(self) -> dict[str, Any]: ...


def _title(attempt: _Attempt) -> str:
    return str((attempt.rules or {}).get("title") or attempt.assessment_slug)


@dataclass(frozen=True)
class _Held:
    """One of the student's attempts whose score is not out yet."""

    assessment_slug: str
    status: str
    deadline: dt.datetime
    release_at: dt.datetime | None
    rules: dict[str, Any]
    items: list[dict[str, Any]]


@dataclass(frozen=True)
class _Standing:
    """A student's exams in one course, as one statement reads them: the attempts not settled,
    their own windows of the exams that ask the items, and which of those they started."""

    attempts: list[_Held]
    windows: dict[str, tuple[dt.datetime | None, dt.datetime | None]]
    started: set[str]


# Built once (as app/progress/service.py's): a page asks this, and building costs more CPU than
# running it. One statement for three reads (each statement is about a third of a millisecond of
# the web process's CPU); the first select's column types type the union's, so a window's
# opening and closing ride in the deadline and release columns.
_A, _W = AssessmentAttempt, Accommodation
_USER: BindParameter[int] = bindparam("user_id")
_COURSE: BindParameter[str] = bindparam("course_slug")
_EXAMS: BindParameter[str] = bindparam("slugs", expanding=True)  # the exams asking the items
_NO_TEXT, _NO_TIME, _NO_JSON = (
    cast(null(), String),
    cast(null(), DateTime(timezone=True)),
    cast(null(), JSON),
)
_STANDING = union_all(
    select(
        literal("attempt").label("kind"),
        _A.assessment_slug,
        _A.status,
        _A.deadline,
        _A.release_at,
        _A.rules,
        _A.items,
    ).where(
        _A.user_id == _USER,
        _A.course_slug == _COURSE,
        _A.release_at.is_(None) | (_A.release_at > bindparam("now")),
    ),
    select(
        literal("window"), _W.assessment_slug, _NO_TEXT, _W.opens_at, _W.closes_at, _NO_JSON,
        _NO_JSON,
    ).where(_W.user_id == _USER, _W.course_slug == _COURSE, _W.assessment_slug.in_(_EXAMS)),
    select(
        literal("started"), _A.assessment_slug, _NO_TEXT, _NO_TIME, _NO_TIME, _NO_JSON, _NO_JSON,
    ).where(_A.user_id == _USER, _A.course_slug == _COURSE, _A.assessment_slug.in_(_EXAMS)),
)  # fmt: skip


def _exams(course_slug: str, keys: Collection[str], rule: str) -> dict[str, AssessmentFile]:
    """This course's exams asking one of these items (in any of its pools) that do not open
    `rule`; read from the content served, no statement."""
    course = process_registry().content(course_slug)
    if course is None:
        return {}
    return {
        spec.slug: spec
        for spec in assessments_for(course).by_slug.values()  # no sort per page: no overlaps
        if spec.kind == "exam" and not getattr(spec.open_during, rule) and _asks(spec, keys)
    }


def _standing(
    session: Session, user_id: int, course_slug: str, exams: Collection[str], now: dt.datetime
) -> _Standing:
    """This student's attempts in this course whose score is not out yet (running ones, and
    over ones awaiting their release), their own windows of these exams (accommodations) and
    which of these they started; one statement. Another course's exercise or question of the
    same key is another item."""
    params = {"user_id": user_id, "course_slug": course_slug, "now": now, "slugs": sorted(exams)}
    standing = _Standing([], {}, set())
    rows = read_rows(session, _STANDING, params)
    for kind, slug, status, deadline, release_at, rules, items in rows:
        if kind == "window":
            standing.windows[slug] = (deadline, release_at)
        elif kind == "started":
            standing.started.add(slug)
        elif status == "open" or "release" in (rules or {}):
            # A handed-in attempt whose rules name no release (from before releases) holds
            # nothing.
            standing.attempts.append(_Held(slug, status, deadline, release_at, rules, items))
    return standing


def _running(attempt: _Held, now: dt.datetime) -> bool:
    return attempt.status == "open" and as_utc(attempt.deadline) > now


def _holder(attempts: list[_Held], keys: Collection[str], rule: str) -> _Held | None:
    """The first attempt that asks one of these items and whose assessment does not open
    `rule`."""
    for attempt in attempts:
        if any(item["key"] in keys for item in attempt.items) and not attempt.rules.get(rule):
            return attempt
    return None


def _asks(spec: AssessmentFile, keys: Collection[str]) -> bool:
    return any(item.key in keys for part in spec.parts for item in part.items)


def _open_windows(
    exams: dict[str, AssessmentFile], standing: _Standing, now: dt.datetime
) -> dict[str, dt.datetime]:
    """The exams open to this student now, with when each closes for them: from the earlier
    opening to the later closing of the class's window and any window of their own (an
    accommodation in any offering: held longer, never less), in the exams' order."""
    open_now: dict[str, dt.datetime] = {}
    for slug, spec in exams.items():
        opens, closes = as_utc(spec.opens), as_utc(spec.closes)
        own_opens, own_closes = standing.windows.get(slug, (None, None))
        opens = min(opens, as_utc(own_opens)) if own_opens else opens
        closes = max(closes, as_utc(own_closes)) if own_closes else closes
        if opens <= now < closes:
            open_now[slug] = closes
    return open_now


def _open_exam(
    session: Session,
    user_id: int,
    course_slug: str,
    exams: dict[str, AssessmentFile],
    standing: _Standing,
    now: dt.datetime,
) -> tuple[AssessmentFile, dt.datetime] | None:
    """One of these exams open to this student, who has not started it, with when it closes
    for them. Open: from the class's or their own window's opening to the later closing (a
    make-up sitting keeps its items closed to its student, not to the class). Staff who sit
    the course nowhere are not held (asked only while such an exam is open)."""
    waiting = {
        slug: closes
        for slug, closes in _open_windows(exams, standing, now).items()
        if slug not in standing.started
    }
    if not waiting or exempt_from_exams(
        session=session, user=session.get(User, user_id), course_slug=course_slug, now=now
    ):
        return None
    slug, closes = next(iter(waiting.items()))
    return exams[slug], closes


def _released_when(attempt: _Attempt) -> str:
    """When this attempt's scores come out, in the student's words."""
    if attempt.status == "open":
        return "once your attempt, whose time is up, has been handed in; this takes a moment"
    if attempt.release_at is None:
        return "when your instructor releases the scores"
    return f"at {as_utc(attempt.release_at).strftime('%Y-%m-%d %H:%M UTC')}"


def exam_lock(
    *,
    session: Session,
    user_id: int,
    course_slug: str,
    exercise_slug: str,
    what: Lockable,
    now: dt.datetime,
) -> str | None:
    """Why `what` is closed for this student now (a running attempt in this course asks this
    exercise), or None."""
    key = {f"x:{exercise_slug}"}
    exams = _exams(course_slug, key, what)
    standing = _standing(session, user_id, course_slug, exams, now)
    attempts = standing.attempts
    running = _holder([a for a in attempts if _running(a, now)], key, what)
    if running is not None:
        until = as_utc(running.deadline).strftime("%H:%M UTC")
        return (
            f"{WORDS[what]} of this exercise are closed while your attempt at "
            f"'{_title(running)}' runs (until {until})."
        )
    scheduled = _open_exam(session, user_id, course_slug, exams, standing, now)
    if scheduled is not None:
        spec, closes = scheduled
        return (
            f"{WORDS[what]} of this exercise are closed while the exam '{spec.title}', which "
            f"asks it, is open (until {closes.strftime('%Y-%m-%d %H:%M UTC')})."
        )
    if what == "hints":
        return None  # a hint tells nothing of a handed-in answer's verdict
    over = _holder([a for a in attempts if not _running(a, now)], key, what)
    if over is not None:
        return (
            f"{WORDS[what]} of this exercise open when your scores for '{_title(over)}' "
            f"are released ({_released_when(over)})."
        )
    return None


def practice_lock(
    *,
    session: Session,
    user_id: int,
    course_slug: str,
    keys: Sequence[str],
    now: dt.datetime,
) -> str | None:
    """Why practising these items of this course (a quiz's questions, or one exercise) is
    closed to this student now: an attempt of theirs holds one and its assessment does not
    open practice (`open_during: practice`), or an open exam they have not started asks one.
    One statement, however many items (more only while an exam they have not started is open)."""
    if not keys:
        return None
    what = "question" if keys[0].startswith("q:") else "exercise"
    asked = set(keys)
    exams = _exams(course_slug, asked, "practice")
    standing = _standing(session, user_id, course_slug, exams, now)
    attempts = standing.attempts
    running = _holder([a for a in attempts if _running(a, now)], asked, "practice")
    if running is not None:
        until = as_utc(running.deadline).strftime("%H:%M UTC")
        return (
            f"This {what} is part of your running attempt at '{_title(running)}', so "
            f"practising it is closed until your attempt ends (at {until}); answer it in "
            "the attempt."
        )
    over = _holder([a for a in attempts if not _running(a, now)], asked, "practice")
    if over is not None:
        return (
            f"This {what} was part of your attempt at '{_title(over)}', so practising "
            f"it opens when its scores are released ({_released_when(over)}): an answer "
            "checked now would tell your score early."
        )
    scheduled = _open_exam(session, user_id, course_slug, exams, standing, now)
    if scheduled is not None:
        spec, closes = scheduled
        return (
            f"This {what} is part of the exam '{spec.title}', open until "
            f"{closes.strftime('%Y-%m-%d %H:%M UTC')}, so practising it is closed until then "
            "(if you take the exam, until your scores are released)."
        )
    return None


def result_hold(*, session: Session, purpose: str, user_id: int, now: dt.datetime) -> str | None:
    """Why an assessment answer's verdict is held from its student: the attempt's score is not
    released yet (the same rule as the attempt's own page)."""
    attempt_id = attempt_of(purpose)
    if attempt_id is None:
        return None
    attempt = session.get(AssessmentAttempt, attempt_id)
    if attempt is None:
        return None
    if attempt.release_at is not None and as_utc(attempt.release_at) <= now:
        return None
    return (
        f"This code is your answer in '{_title(attempt)}'; its result is shown with the "
        f"attempt's score, released {_released_when(attempt)}."
    )
