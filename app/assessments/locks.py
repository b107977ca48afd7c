"""What a running attempt closes (hints, solutions, hidden tests, practice of its own items),
and what an attempt holds back until its release (the verdict of its handed-in code)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.models import AssessmentAttempt
from app.models_base import as_utc
from app.submissions.locks import Lockable
from app.submissions.models import attempt_of

WORDS = {"hints": "Hints", "solutions": "Model solutions", "hidden_tests": "Hidden tests"}


def _title(attempt: AssessmentAttempt) -> str:
    return str((attempt.rules or {}).get("title") or attempt.assessment_slug)


def _unsettled(
    session: Session, user_id: int, course_slug: str, now: dt.datetime
) -> list[AssessmentAttempt]:
    """This student's attempts in this course whose score is not out yet: running ones, and
    over ones (handed in, or past their time) awaiting their release; one query for both.
    Another course's exercise or question of the same key is another item."""
    rows = session.scalars(
        select(AssessmentAttempt).where(
            AssessmentAttempt.user_id == user_id,
            AssessmentAttempt.course_slug == course_slug,
            (AssessmentAttempt.release_at.is_(None)) | (AssessmentAttempt.release_at > now),
        )
    )
    # A handed-in attempt whose rules name no release (from before releases) holds nothing.
    return [a for a in rows if a.status == "open" or "release" in (a.rules or {})]


def _running(attempt: AssessmentAttempt, now: dt.datetime) -> bool:
    return attempt.status == "open" and as_utc(attempt.deadline) > now


def _holder(attempts: list[AssessmentAttempt], key: str, rule: str) -> AssessmentAttempt | None:
    """The first attempt that asks this item and whose assessment does not open `rule`."""
    for attempt in attempts:
        if any(item["key"] == key for item in attempt.items) and not attempt.rules.get(rule):
            return attempt
    return None


def _released_when(attempt: AssessmentAttempt) -> str:
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
    key = f"x:{exercise_slug}"
    attempts = _unsettled(session, user_id, course_slug, now)
    running = _holder([a for a in attempts if _running(a, now)], key, what)
    if running is not None:
        until = as_utc(running.deadline).strftime("%H:%M UTC")
        return (
            f"{WORDS[what]} of this exercise are closed while your attempt at "
            f"'{_title(running)}' runs (until {until})."
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
    *, session: Session, user_id: int, course_slug: str, item_key: str, now: dt.datetime
) -> str | None:
    """Why practising this course's item is closed to this student now: an attempt of theirs in
    this course holds it and its assessment does not open practice (`open_during: practice`)."""
    attempts = _unsettled(session, user_id, course_slug, now)
    what = "question" if item_key.startswith("q:") else "exercise"
    running = _holder([a for a in attempts if _running(a, now)], item_key, "practice")
    if running is not None:
        until = as_utc(running.deadline).strftime("%H:%M UTC")
        return (
            f"This {what} is part of your running attempt at '{_title(running)}', so "
            f"practising it is closed until your attempt ends (at {until}); answer it in "
            "the attempt."
        )
    over = _holder([a for a in attempts if not _running(a, now)], item_key, "practice")
    if over is not None:
        return (
            f"This {what} was part of your attempt at '{_title(over)}', so practising "
            f"it opens when its scores are released ({_released_when(over)}): an answer "
            "checked now would tell your score early."
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
