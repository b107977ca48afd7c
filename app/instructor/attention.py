"""Who needs help: each student of the offering with signals an instructor can read, ranked.

Signals come from the offering's own rows: graded submissions (tries, solves, progress), quiz
attempts, hints opened, and the exercises' due dates with the student's extensions.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.deadlines.rules import Dates, offering_dates
from app.instructor.gradebook import SOLVED
from app.models_base import as_utc
from app.offerings.access import offering_id_here, students_here, work_here
from app.offerings.place import Place
from app.progress.models import HintReveal, QuizAttempt
from app.submissions.models import PRACTICE, Submission
from app.users.models import User

STUCK_TRIES = 3  # this many graded tries on one exercise without solving it is a signal
GAP = dt.timedelta(minutes=30)  # a longer pause ends a stretch of work
LEAD_IN = dt.timedelta(minutes=5)  # reading and thinking before a stretch's first action
MAX_WEEKS = 4  # weeks without progress count up to this many points
LOW_QUIZ = 0.5
MANY_HINTS = 3
# How the page explains the estimate, in the words the ranking uses.
TIME_ON_TASK_TEXT = (
    "Time on task is estimated from activity: submissions and runs, quiz attempts and hints "
    "opened. Actions less than 30 minutes apart belong to one stretch of work, which counts from "
    "its first action to its last, plus 5 minutes before the first for reading; a gap of more "
    "than 30 minutes starts a new stretch. Time spent reading without acting is not seen."
)


@dataclass
class Signals:
    """What one student's record says, before ranking."""

    user: User
    tries: dict[str, int] = field(default_factory=dict)  # graded tries per exercise
    best: dict[str, float] = field(default_factory=dict)  # best score per exercise
    quiz_best: dict[str, float] = field(default_factory=dict)
    hints: int = 0
    last_progress: dt.datetime | None = None
    moments: list[dt.datetime] = field(default_factory=list)
    past_due: list[str] = field(default_factory=list)

    def progressed(self, at: dt.datetime) -> None:
        """A best score rose at this moment."""
        if self.last_progress is None or at > self.last_progress:
            self.last_progress = at

    def stuck(self) -> list[tuple[str, int]]:
        """Exercises tried many times without full marks."""
        return sorted(
            (slug, n)
            for slug, n in self.tries.items()
            if n >= STUCK_TRIES and self.best.get(slug, 0.0) < SOLVED
        )

    def quiz_average(self) -> float | None:
        """The mean of the best score of each quiz taken."""
        scores = list(self.quiz_best.values())
        return round(sum(scores) / len(scores), 4) if scores else None


def time_on_task(moments: list[dt.datetime]) -> dt.timedelta:
    """Stretches of activity (actions under 30 minutes apart), each with a 5-minute lead-in."""
    total = dt.timedelta(0)
    previous: dt.datetime | None = None
    for moment in sorted(moments):
        gap = None if previous is None else moment - previous
        total += LEAD_IN if gap is None or gap > GAP else gap
        previous = moment
    return total


def _dates(session: Session, course: Course, place: Place) -> Dates:
    offering_id, _ = offering_id_here(session=session, place=place)
    content: dict[tuple[Any, str], dt.datetime | None] = {
        ("exercise", ex.meta.slug): ex.meta.due for ex in course.exercises if not ex.meta.draft
    }
    return offering_dates(session=session, offering_id=offering_id, content_dues=content)


def _submissions(session: Session, found: dict[int, Signals], place: Place) -> None:
    rows = session.execute(
        select(
            Submission.user_id,
            Submission.exercise_slug,
            Submission.mode,
            Submission.status,
            Submission.score,
            Submission.created_at,
        )
        .join(User, User.id == Submission.user_id)
        .where(
            students_here(place),
            work_here(session, Submission.offering_id, place),
            Submission.purpose == PRACTICE,  # an exam's answers are not practice
        )
        .order_by(Submission.created_at, Submission.id)
    )
    for user_id, slug, mode, status, score, created in rows:
        signals = found.get(user_id)
        if signals is None:
            continue
        at = as_utc(created)
        signals.moments.append(at)
        if mode != "submit" or status != "done":
            continue
        signals.tries[slug] = signals.tries.get(slug, 0) + 1
        if (score or 0.0) > signals.best.get(slug, 0.0):
            signals.best[slug] = score or 0.0
            signals.progressed(at)


def _quizzes(session: Session, found: dict[int, Signals], place: Place) -> None:
    rows = session.execute(
        select(
            QuizAttempt.user_id, QuizAttempt.lesson_slug, QuizAttempt.score, QuizAttempt.created_at
        )
        .join(User, User.id == QuizAttempt.user_id)
        .where(students_here(place), work_here(session, QuizAttempt.offering_id, place))
        .order_by(QuizAttempt.created_at, QuizAttempt.id)
    )
    for user_id, slug, score, created in rows:
        signals = found.get(user_id)
        if signals is None:
            continue
        at = as_utc(created)
        signals.moments.append(at)
        if score > signals.quiz_best.get(slug, 0.0):
            signals.quiz_best[slug] = score
            signals.progressed(at)
        signals.quiz_best.setdefault(slug, score)


def _hints(session: Session, found: dict[int, Signals], slugs: set[str], place: Place) -> None:
    rows = session.execute(
        select(HintReveal.user_id, HintReveal.exercise_slug, HintReveal.created_at)
        .join(User, User.id == HintReveal.user_id)
        .where(
            students_here(place),
            HintReveal.course_slug == place.course_slug,  # not another course's of one slug
            HintReveal.exercise_slug.in_(slugs),
        )
    )
    for user_id, _slug, created in rows:
        signals = found.get(user_id)
        if signals is not None:
            signals.hints += 1
            signals.moments.append(as_utc(created))


def _past_due(found: dict[int, Signals], dates: Dates, now: dt.datetime) -> None:
    for signals in found.values():
        for kind, slug in sorted(dates.dues):
            due = dates.due_for(signals.user.id, kind, slug) if kind == "exercise" else None
            if due is None:
                continue
            if due < now and signals.best.get(slug, 0.0) < SOLVED:
                signals.past_due.append(slug)


def collect(*, session: Session, course: Course, now: dt.datetime, place: Place) -> list[Signals]:
    """Every student of this request's offering with their signals."""
    students = session.scalars(select(User).where(students_here(place)))
    found = {u.id: Signals(u) for u in students}
    slugs = {ex.meta.slug for ex in course.exercises if not ex.meta.draft}
    _submissions(session, found, place)
    _quizzes(session, found, place)
    _hints(session, found, slugs, place)
    _past_due(found, _dates(session, course, place), now)
    return list(found.values())


@dataclass(frozen=True)
class Row:
    """One student's line on the page: points, the reasons behind them, the numbers."""

    user: User
    points: int
    reasons: list[str]
    signals: dict[str, Any]


def _weeks_idle(signals: Signals, unsolved: bool, now: dt.datetime) -> int:
    """Whole weeks since the last progress, while something is left to solve."""
    if not unsolved:
        return 0
    if signals.last_progress is None:
        return MAX_WEEKS
    return min(MAX_WEEKS, (now - signals.last_progress).days // 7)


def _reasons(signals: Signals, weeks: int) -> list[str]:
    found = [f"{n} tries on {slug} without solving it" for slug, n in signals.stuck()]
    found += [f"{slug} is past its due date and unsolved" for slug in signals.past_due]
    if weeks:
        found.append(
            "no progress yet"
            if signals.last_progress is None
            else f"no progress for {weeks}+ weeks"
        )
    average = signals.quiz_average()
    if average is not None and average < LOW_QUIZ:
        found.append(f"quiz average {round(average * 100)}%")
    if signals.hints >= MANY_HINTS:
        found.append(f"{signals.hints} hints opened")
    return found


def row(signals: Signals, *, slugs: set[str], now: dt.datetime) -> Row:
    """Score one student: 3 points per past-due unsolved exercise, 2 per exercise tried many
    times without solving, 1 per week without progress (up to 4), 1 for a quiz average under
    half, 1 for many hints opened."""
    unsolved = any(signals.best.get(slug, 0.0) < SOLVED for slug in slugs)
    weeks = _weeks_idle(signals, unsolved, now)
    stuck = signals.stuck()
    average = signals.quiz_average()
    points = 3 * len(signals.past_due) + 2 * len(stuck) + weeks
    points += int(average is not None and average < LOW_QUIZ) + int(signals.hints >= MANY_HINTS)
    last = signals.last_progress
    return Row(
        user=signals.user,
        points=points,
        reasons=_reasons(signals, weeks),
        signals={
            "points": points,
            "tries_without_solving": [{"exercise": slug, "tries": n} for slug, n in stuck],
            "past_due_unsolved": list(signals.past_due),
            "last_progress": last.isoformat() if last else None,
            "days_since_progress": round((now - last).total_seconds() / 86400, 2) if last else None,
            "hints_opened": signals.hints,
            "quiz_average": average,
            "time_on_task_minutes": round(time_on_task(signals.moments).total_seconds() / 60),
        },
    )


def ranked(*, session: Session, course: Course, now: dt.datetime, place: Place) -> list[Row]:
    """The offering's students, those who most need help first."""
    slugs = {ex.meta.slug for ex in course.exercises if not ex.meta.draft}
    rows = [
        row(s, slugs=slugs, now=now)
        for s in collect(session=session, course=course, now=now, place=place)
    ]
    return sorted(
        rows,
        key=lambda r: (
            -r.points,
            -len(r.signals["past_due_unsolved"]),
            -len(r.signals["tries_without_solving"]),
            r.user.name.lower(),
            r.user.email,
        ),
    )
