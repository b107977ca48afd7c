"""The rules of an attempt: windows, drawing, deadlines, saving answers, handing in."""

from __future__ import annotations

import datetime as dt
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.assessments import scoring
from app.assessments.loader import find_exercise, find_question
from app.assessments.models import Accommodation, AssessmentAnswer, AssessmentAttempt
from app.assessments.schema import AssessmentFile, Item
from app.content.loader import Course
from app.courses.first import first_course_slug
from app.deadlines.policy import policy_for, refusal_message
from app.errors import DomainError
from app.models_base import as_utc
from app.offerings.place import Place
from app.offerings.service import in_offering, offering_for_work
from app.quiz.service import normalise_answer
from app.users.models import User

Enqueue = Callable[[int], None]


class AssessmentError(DomainError):
    """A request the rules refuse; carries the HTTP status and a plain message."""


def stamp(value: dt.datetime) -> str:
    """A moment as students read it in messages."""
    return as_utc(value).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True)
class Window:
    """When one student may start, and the extra minutes their time limit gets."""

    opens: dt.datetime
    closes: dt.datetime
    extra_minutes: float


def course_slug_of(course: Course) -> str:
    """The course's permanent slug (content loaded outside the registry: the first course)."""
    return course.slug or first_course_slug()


def work_offering(
    *, session: Session, course: Course, user_id: int, place: Place | None = None
) -> int | None:
    """The offering of this course a student's attempt made in this request counts in, so that
    each offering has its own attempts and accommodations (the one `place` names, else their
    newest)."""
    return offering_for_work(
        session=session,
        user_id=user_id,
        course_slug=course_slug_of(course),
        named=place.offering_id if place is not None else None,
    )


def accommodation_of(
    *, session: Session, slug: str, user_id: int, offering_id: int | None
) -> Accommodation | None:
    """The student's accommodation on this assessment in this offering, if one was set there."""
    return session.scalar(
        select(Accommodation)
        .where(
            Accommodation.user_id == user_id,
            Accommodation.assessment_slug == slug,
            in_offering(session=session, column=Accommodation.offering_id, offering_id=offering_id),
        )
        .order_by(Accommodation.id)
    )


def window_for(
    *, session: Session, spec: AssessmentFile, user_id: int, offering_id: int | None
) -> Window:
    """The assessment's window, or the student's own one in this offering, with their extra
    minutes (an accommodation given in another offering does not apply here)."""
    found = accommodation_of(
        session=session, slug=spec.slug, user_id=user_id, offering_id=offering_id
    )
    if found is None:
        return Window(as_utc(spec.opens), as_utc(spec.closes), 0)
    opens = as_utc(found.opens_at) if found.opens_at else as_utc(spec.opens)
    closes = as_utc(found.closes_at) if found.closes_at else as_utc(spec.closes)
    return Window(opens, closes, found.extra_minutes)


LATE_HOMEWORK = dt.timedelta(days=30)  # how long after closing late homework is still taken


def hard_end(
    *, session: Session, spec: AssessmentFile, window: Window, offering_id: int | None
) -> dt.datetime:
    """When nothing more is taken: an exam's closing time; homework's by the offering's policy
    (refuse: closing time plus the grace period; otherwise late work for LATE_HOMEWORK more)."""
    if spec.kind == "exam":
        return window.closes
    policy = policy_for(session=session, offering_id=offering_id)
    if policy.mode == "refuse":
        return window.closes + policy.grace
    return window.closes + LATE_HOMEWORK


def draw_items(*, spec: AssessmentFile, seed: int) -> list[dict[str, Any]]:
    """The items one student gets: each pool sampled with the seed, in the pool's order."""
    drawn: list[dict[str, Any]] = []
    for index, part in enumerate(spec.parts):
        chosen: list[Item] = part.items
        if part.draw is not None:
            rng = random.Random(f"{seed}:{index}")  # noqa: S311  (reproducible by design)
            picks = set(rng.sample(range(len(part.items)), part.draw))
            chosen = [item for i, item in enumerate(part.items) if i in picks]
        drawn.extend({"key": item.key, "part": index, "points": item.points} for item in chosen)
    return drawn


def frozen_rules(spec: AssessmentFile) -> dict[str, Any]:
    """What an attempt keeps of its file when it starts: later edits do not change it."""
    release = spec.release if isinstance(spec.release, str) else spec.release.isoformat()
    return {
        **spec.open_during.model_dump(),
        "release": release,
        "closes": spec.closes.isoformat(),
        "kind": spec.kind,
        "title": spec.title,
    }


def attempts_of(
    *, session: Session, slug: str, user_id: int, offering_id: int | None
) -> list[AssessmentAttempt]:
    """A student's attempts at one assessment made in this offering, first first: the attempt
    limit is per offering, so last term's attempts leave this term's untouched."""
    return list(
        session.scalars(
            select(AssessmentAttempt)
            .where(
                AssessmentAttempt.user_id == user_id,
                AssessmentAttempt.assessment_slug == slug,
                in_offering(
                    session=session, column=AssessmentAttempt.offering_id, offering_id=offering_id
                ),
            )
            .order_by(AssessmentAttempt.number, AssessmentAttempt.id)
        )
    )


def start_attempt(
    *,
    session: Session,
    course: Course,
    spec: AssessmentFile,
    user: User,
    now: dt.datetime,
    enqueue: Enqueue,
    place: Place | None = None,
) -> AssessmentAttempt:
    """Begin an attempt (or return the one running): seed, items and deadline are fixed now."""
    offering_id = work_offering(session=session, course=course, user_id=user.id, place=place)
    window = window_for(session=session, spec=spec, user_id=user.id, offering_id=offering_id)
    earlier = attempts_of(session=session, slug=spec.slug, user_id=user.id, offering_id=offering_id)
    for attempt in earlier:
        finish_if_due(session=session, course=course, attempt=attempt, now=now, enqueue=enqueue)
        if attempt.status == "open":
            return attempt
    if now < window.opens:
        raise AssessmentError(403, f"'{spec.title}' opens at {stamp(window.opens)}.")
    end = hard_end(session=session, spec=spec, window=window, offering_id=offering_id)
    refuses = policy_for(session=session, offering_id=offering_id).mode == "refuse"
    if now >= end and spec.kind == "homework" and refuses:
        raise AssessmentError(409, refusal_message(due=window.closes, what="homework"))
    if now >= end:
        raise AssessmentError(403, f"'{spec.title}' closed at {stamp(end)}.")
    if len(earlier) >= spec.attempts:
        raise AssessmentError(
            409,
            f"You have used all {spec.attempts} attempt{'s' if spec.attempts > 1 else ''} "
            f"at '{spec.title}'.",
        )
    deadline = end
    if spec.time_limit_minutes is not None:
        limit = dt.timedelta(minutes=spec.time_limit_minutes + window.extra_minutes)
        deadline = min(now + limit, end)
    seed = secrets.randbelow(2**31)
    attempt = AssessmentAttempt(
        user_id=user.id,
        course_slug=course_slug_of(course),
        offering_id=offering_id,
        assessment_slug=spec.slug,
        # numbered within the offering, after any number already used there
        number=max((a.number for a in earlier), default=0) + 1,
        seed=seed,
        items=draw_items(spec=spec, seed=seed),
        rules=frozen_rules(spec),
        started_at=now,
        deadline=deadline,
        status="open",
    )
    session.add(attempt)
    try:
        session.commit()
    except IntegrityError:  # a second Start at the same moment stored the same number first
        session.rollback()
        return _the_running_one(session=session, spec=spec, user=user, offering_id=offering_id)
    return attempt


def _the_running_one(
    *, session: Session, spec: AssessmentFile, user: User, offering_id: int | None
) -> AssessmentAttempt:
    """The attempt a simultaneous Start just stored: both clicks get it."""
    for attempt in attempts_of(
        session=session, slug=spec.slug, user_id=user.id, offering_id=offering_id
    ):
        if attempt.status == "open":
            return attempt
    raise AssessmentError(409, f"You have already started '{spec.title}'; reload the page.")


def own_attempt(*, session: Session, attempt_id: int, user: User) -> AssessmentAttempt:
    """The attempt if it is this student's; someone else's is refused, not shown."""
    attempt = session.get(AssessmentAttempt, attempt_id)
    if attempt is None:
        raise AssessmentError(404, "There is no attempt with that id.")
    if attempt.user_id != user.id:
        raise AssessmentError(
            403, "This attempt belongs to another student; you can answer only your own."
        )
    return attempt


def answers_of(*, session: Session, attempt: AssessmentAttempt) -> dict[str, AssessmentAnswer]:
    """Every saved answer of the attempt, by item key."""
    return scoring.answers_of_attempt(session, attempt.id)


def _clean_value(course: Course, key: str, raw: Any, max_code_bytes: int) -> Any:
    item = Item(question=key[2:]) if key.startswith("q:") else Item(exercise=key[2:])
    question = find_question(course, item)
    if question is not None:
        return normalise_answer(question, raw)
    exercise = find_exercise(course, item)
    if exercise is None:
        raise AssessmentError(409, f"'{key[2:]}' is no longer part of the course.")
    if not isinstance(raw, dict) or set(raw) != {"framework", "code"}:
        raise AssessmentError(
            422, 'An exercise answer is {"framework": "numpy", "code": "<your code>"}.'
        )
    framework, code = raw["framework"], raw["code"]
    if framework not in exercise.meta.frameworks or not isinstance(code, str):
        offered = ", ".join(exercise.meta.frameworks)
        raise AssessmentError(422, f"Choose one of: {offered}, and send the code as text.")
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > max_code_bytes:
        raise AssessmentError(
            413, f"Your code is {size // 1024} KB; the limit is {max_code_bytes // 1024} KB."
        )
    return {"framework": framework, "code": code}


def handed_in(attempt: AssessmentAttempt) -> AssessmentError:
    """The 409 for an answer that arrives once the attempt is handed in: it was not saved."""
    when = stamp(attempt.submitted_at or attempt.deadline)
    how = " when its time ran out" if attempt.submitted_by == "clock" else ""
    return AssessmentError(
        409,
        f"This attempt was already handed in at {when}{how}, so this answer was not saved; "
        "the answers saved before the hand-in were graded.",
    )


def _hold_open(session: Session, attempt: AssessmentAttempt) -> None:
    """Lock the attempt as still open until this transaction ends, or refuse: handed in.

    Why: the attempt was read earlier in the request; a hand-in may have committed since, and
    an answer written after it read the answers would be stored but never graded. The guarded
    write takes the attempt's row lock (PostgreSQL) or the database's write lock (SQLite), so
    `finish_attempt`'s claim waits for this save to commit and then grades its answer.
    """
    held = session.execute(
        update(AssessmentAttempt)
        .where(AssessmentAttempt.id == attempt.id, AssessmentAttempt.status == "open")
        .values(status="open")
    )
    if held.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        session.refresh(attempt)
        raise handed_in(attempt)


def save_answer(
    *,
    session: Session,
    course: Course,
    attempt: AssessmentAttempt,
    item_key: str,
    value: Any,
    now: dt.datetime,
    max_code_bytes: int,
    enqueue: Enqueue,
) -> AssessmentAnswer:
    """Store one answer; after the deadline nothing changes and the attempt is handed in.

    The answer is written only while the attempt is still open, checked in the same transaction
    that writes it (`_hold_open`), so a hand-in racing the save either waits and grades it or has
    happened, and the save is refused: an answer is never stored after its attempt was graded.
    """
    if attempt.status != "open":
        raise handed_in(attempt)
    if now >= as_utc(attempt.deadline):
        finish_if_due(session=session, course=course, attempt=attempt, now=now, enqueue=enqueue)
        raise AssessmentError(
            409,
            f"Time is up: this attempt ended at {stamp(attempt.deadline)}. This answer arrived "
            "after the end and was not saved; the answers saved before it were handed in.",
        )
    if item_key not in {item["key"] for item in attempt.items}:
        raise AssessmentError(422, f"'{item_key[:120]}' is not one of this attempt's questions.")
    cleaned = _clean_value(course, item_key, value, max_code_bytes)
    _hold_open(session, attempt)
    row = session.scalar(
        select(AssessmentAnswer).where(
            AssessmentAnswer.attempt_id == attempt.id, AssessmentAnswer.item_key == item_key
        )
    )
    if row is None:
        row = AssessmentAnswer(attempt_id=attempt.id, item_key=item_key, value=cleaned, saves=1)
        session.add(row)
    else:
        row.value, row.saves = cleaned, row.saves + 1
    row.updated_at = now
    session.commit()
    return row


def finish_attempt(
    *,
    session: Session,
    course: Course,
    attempt: AssessmentAttempt,
    now: dt.datetime,
    by: str,
    enqueue: Enqueue,
) -> AssessmentAttempt:
    """Hand in: claim once; grade questions (scored if no code waits) in one commit; send code."""
    at = min(now, as_utc(attempt.deadline))
    claimed = session.execute(
        update(AssessmentAttempt)
        .where(AssessmentAttempt.id == attempt.id, AssessmentAttempt.status == "open")
        .values(status="submitted", submitted_at=at, submitted_by=by)
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        session.refresh(attempt)
        return attempt
    session.refresh(attempt)  # committed below with the grades: no page reads a handed-in gap
    answers = answers_of(session=session, attempt=attempt)
    attempt.results = scoring.grade_questions(course=course, attempt=attempt, answers=answers)
    scoring.set_release(session=session, attempt=attempt)
    if not scoring.code_to_send(attempt, answers):
        scoring.settle(session=session, attempt=attempt)
        session.commit()
        return attempt
    session.commit()
    scoring.submit_exercises(session=session, course=course, attempt=attempt, enqueue=enqueue)
    scoring.settle(session=session, attempt=attempt)
    session.commit()
    return attempt


def finish_if_due(
    *,
    session: Session,
    course: Course,
    attempt: AssessmentAttempt,
    now: dt.datetime,
    enqueue: Enqueue,
) -> bool:
    """Hand in an attempt whose time ran out (on the next read: no timer needed on the server)."""
    if attempt.status == "open" and now >= as_utc(attempt.deadline):
        finish_attempt(
            session=session, course=course, attempt=attempt, now=now, by="clock", enqueue=enqueue
        )
        return True
    if attempt.status == "submitted" and attempt.score is None:
        scoring.submit_exercises(session=session, course=course, attempt=attempt, enqueue=enqueue)
    return False
