"""What a running attempt closes (hints, solutions, hidden tests, practice of its own items),
what an open exam closes to a student who has not started it, and what an attempt holds back
until its release (the verdict of its handed-in code)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence

from sqlalchemy import BindParameter, bindparam, select
from sqlalchemy.orm import Session

from app.assessments.loader import assessments_for
from app.assessments.models import Accommodation, AssessmentAttempt
from app.assessments.schema import AssessmentFile
from app.courses.service import process_registry
from app.models_base import as_utc
from app.offerings.standing import staff_of_course
from app.submissions.locks import Lockable
from app.submissions.models import attempt_of
from app.users.models import User

WORDS = {"hints": "Hints", "solutions": "Model solutions", "hidden_tests": "Hidden tests"}


def _title(attempt: AssessmentAttempt) -> str:
    return str((attempt.rules or {}).get("title") or attempt.assessment_slug)


# Built once (as app/progress/service.py's): a page asks these, and building costs more CPU
# than running them.
_USER: BindParameter[int] = bindparam("user_id")
_COURSE: BindParameter[str] = bindparam("course_slug")
_UNSETTLED = select(AssessmentAttempt).where(
    AssessmentAttempt.user_id == _USER,
    AssessmentAttempt.course_slug == _COURSE,
    AssessmentAttempt.release_at.is_(None) | (AssessmentAttempt.release_at > bindparam("now")),
)
_OWN_WINDOWS = select(
    Accommodation.assessment_slug, Accommodation.opens_at, Accommodation.closes_at
).where(
    Accommodation.user_id == _USER,
    Accommodation.course_slug == _COURSE,
    Accommodation.assessment_slug.in_(bindparam("slugs", expanding=True)),
)


def _unsettled(
    session: Session, user_id: int, course_slug: str, now: dt.datetime
) -> list[AssessmentAttempt]:
    """This student's attempts in this course whose score is not out yet: running ones, and
    over ones (handed in, or past their time) awaiting their release; one query for both.
    Another course's exercise or question of the same key is another item."""
    rows = session.scalars(_UNSETTLED, {"user_id": user_id, "course_slug": course_slug, "now": now})
    # A handed-in attempt whose rules name no release (from before releases) holds nothing.
    return [a for a in rows if a.status == "open" or "release" in (a.rules or {})]


def _running(attempt: AssessmentAttempt, now: dt.datetime) -> bool:
    return attempt.status == "open" and as_utc(attempt.deadline) > now


def _holder(
    attempts: list[AssessmentAttempt], keys: Collection[str], rule: str
) -> AssessmentAttempt | None:
    """The first attempt that asks one of these items and whose assessment does not open
    `rule`."""
    for attempt in attempts:
        if any(item["key"] in keys for item in attempt.items) and not attempt.rules.get(rule):
            return attempt
    return None


def _asks(spec: AssessmentFile, keys: Collection[str]) -> bool:
    return any(item.key in keys for part in spec.parts for item in part.items)


def _started(session: Session, user_id: int, course_slug: str, slug: str) -> bool:
    return (
        session.scalar(
            select(AssessmentAttempt.id).where(
                AssessmentAttempt.user_id == user_id,
                AssessmentAttempt.course_slug == course_slug,
                AssessmentAttempt.assessment_slug == slug,
            )
        )
        is not None
    )


def _open_windows(
    session: Session,
    user_id: int,
    course_slug: str,
    exams: dict[str, AssessmentFile],
    now: dt.datetime,
) -> dict[str, dt.datetime]:
    """The exams open to this student now, with when each closes for them: from the earlier
    opening to the later closing of the class's window and any window of their own (an
    accommodation in any offering: held longer, never less), in the exams' order."""
    spans = {slug: (as_utc(s.opens), as_utc(s.closes)) for slug, s in exams.items()}
    rows = session.execute(
        _OWN_WINDOWS, {"user_id": user_id, "course_slug": course_slug, "slugs": sorted(exams)}
    )
    for slug, opens_at, closes_at in rows:
        opens, closes = spans[slug]
        own_opens = as_utc(opens_at) if opens_at else opens
        own_closes = as_utc(closes_at) if closes_at else closes
        spans[slug] = (min(opens, own_opens), max(closes, own_closes))
    return {slug: closes for slug, (opens, closes) in spans.items() if opens <= now < closes}


def _open_exam(
    session: Session,
    user_id: int,
    course_slug: str,
    keys: Collection[str],
    rule: str,
    now: dt.datetime,
) -> tuple[AssessmentFile, dt.datetime] | None:
    """An exam of this course asking one of these items (in any of its pools) open to this
    student, who has not started it, and does not open `rule`; with when it closes for them.
    Open: from the class's or their own window's opening to the later closing (a make-up
    sitting keeps its items closed to its student, not to the class). Staff are not held.
    Read only: one query unless an exam is open."""
    course = process_registry().content(course_slug)
    if course is None:
        return None
    exams = {
        spec.slug: spec
        for spec in assessments_for(
            course
        ).by_slug.values()  # no sort per page: exams never overlap
        if spec.kind == "exam" and not getattr(spec.open_during, rule) and _asks(spec, keys)
    }
    if not exams:
        return None
    open_now = _open_windows(session, user_id, course_slug, exams, now)
    if not open_now or staff_of_course(
        session=session, user=session.get(User, user_id), course_slug=course_slug
    ):
        return None
    for slug, closes in open_now.items():
        if not _started(session, user_id, course_slug, slug):
            return exams[slug], closes
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
    key = {f"x:{exercise_slug}"}
    attempts = _unsettled(session, user_id, course_slug, now)
    running = _holder([a for a in attempts if _running(a, now)], key, what)
    if running is not None:
        until = as_utc(running.deadline).strftime("%H:%M UTC")
        return (
            f"{WORDS[what]} of this exercise are closed while your attempt at "
            f"'{_title(running)}' runs (until {until})."
        )
    scheduled = _open_exam(session, user_id, course_slug, key, what, now)
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
    Two statements at most, however many items."""
    if not keys:
        return None
    what = "question" if keys[0].startswith("q:") else "exercise"
    attempts, asked = _unsettled(session, user_id, course_slug, now), set(keys)
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
    scheduled = _open_exam(session, user_id, course_slug, asked, "practice", now)
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
