"""Per-exercise numbers that tell an instructor where students get stuck."""

from __future__ import annotations

import datetime as dt
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.instructor.gradebook import SOLVED
from app.models_base import as_utc
from app.offerings.access import students_here, work_here
from app.offerings.place import Place
from app.submissions.models import PRACTICE, Submission
from app.users.models import User

MAX_DAYS = 60  # longer spans are drawn per week


@dataclass
class Summary:
    """The headline numbers of one exercise (students' graded 'submit' submissions)."""

    slug: str
    attempts: int = 0
    students: int = 0
    solvers: int = 0
    late: int = 0

    @property
    def solve_rate(self) -> float | None:
        """Share of the students who tried that solved it."""
        return self.solvers / self.students if self.students else None


@dataclass
class Stats(Summary):
    """Everything the analytics page shows for one exercise."""

    median_attempts_to_solve: float | None = None
    median_time_to_solve: dt.timedelta | None = None
    verdicts: list[tuple[str, int]] = field(default_factory=list)
    misconceptions: list[tuple[str, str, int]] = field(default_factory=list)
    failing_tests: list[tuple[str, int]] = field(default_factory=list)
    timeline: list[tuple[dt.date, int, int]] = field(default_factory=list)
    bucket: str = "day"


def _student_rows(
    session: Session, slugs: list[str], *, with_report: bool, place: Place
) -> list[Any]:
    columns: list[Any] = [
        Submission.user_id,
        Submission.exercise_slug,
        Submission.score,
        Submission.verdict,
        Submission.created_at,
        Submission.late,
    ]
    if with_report:
        columns.append(Submission.report)
    return list(
        session.execute(
            select(*columns)
            .join(User, User.id == Submission.user_id)
            .where(
                students_here(place),
                # the offering the work was sent in, not every offering its author is in
                work_here(session, Submission.offering_id, place),
                Submission.exercise_slug.in_(slugs),
                Submission.mode == "submit",
                Submission.status == "done",
                Submission.purpose == PRACTICE,
            )
            .order_by(Submission.created_at, Submission.id)
        ).all()
    )


def _summarise(summary: Summary, rows: list[Any]) -> dict[int, tuple[int, dt.timedelta]]:
    """Fill the headline numbers; returns (attempts, time) to the first solve per solver."""
    seen: dict[int, tuple[int, dt.datetime]] = {}
    solved: dict[int, tuple[int, dt.timedelta]] = {}
    for row in rows:
        count, first = seen.get(row.user_id, (0, as_utc(row.created_at)))
        seen[row.user_id] = (count + 1, first)
        summary.attempts += 1
        summary.late += bool(row.late)
        if (row.score or 0.0) >= SOLVED and row.user_id not in solved:
            solved[row.user_id] = (count + 1, as_utc(row.created_at) - first)
    summary.students = len(seen)
    summary.solvers = len(solved)
    return solved


def summaries(*, session: Session, slugs: list[str], place: Place) -> dict[str, Summary]:
    """Headline numbers for many exercises in one query."""
    rows = _student_rows(session, slugs, with_report=False, place=place)
    found = {slug: Summary(slug) for slug in slugs}
    for slug in slugs:
        _summarise(found[slug], [r for r in rows if r.exercise_slug == slug])
    return found


def exercise_stats(*, session: Session, slug: str, place: Place) -> Stats:
    """The full analytics of one exercise."""
    rows = _student_rows(session, [slug], with_report=True, place=place)
    stats = Stats(slug)
    solved = _summarise(stats, rows)
    if solved:
        stats.median_attempts_to_solve = statistics.median(a for a, _ in solved.values())
        seconds = statistics.median(t.total_seconds() for _, t in solved.values())
        stats.median_time_to_solve = dt.timedelta(seconds=round(seconds))
    verdicts: Counter[str] = Counter()
    mistakes: Counter[tuple[str, str]] = Counter()
    failing: Counter[str] = Counter()
    for row in rows:
        verdicts[row.verdict or "unknown"] += 1
        tests = (row.report or {}).get("tests") or []
        named = {
            (str(t["misconception"].get("id", "")), str(t["misconception"].get("title", "")))
            for t in tests
            if isinstance(t, dict) and isinstance(t.get("misconception"), dict)
        }
        mistakes.update(named)
        failing.update(
            str(t.get("name", "?")) for t in tests if isinstance(t, dict) and not t.get("passed")
        )
    stats.verdicts = verdicts.most_common()
    stats.misconceptions = [(mid, title, n) for (mid, title), n in mistakes.most_common()]
    stats.failing_tests = failing.most_common(5)
    stats.timeline, stats.bucket = timeline(rows)
    return stats


def timeline(rows: list[Any]) -> tuple[list[tuple[dt.date, int, int]], str]:
    """Submissions per day (or per week over long spans): (start, total, solved)."""
    if not rows:
        return [], "day"
    days = [as_utc(r.created_at).date() for r in rows]
    first, last = min(days), max(days)
    step = 1 if (last - first).days < MAX_DAYS else 7
    if step == 7:
        first -= dt.timedelta(days=first.weekday())
    buckets: dict[dt.date, list[int]] = {}
    start = first
    while start <= last:
        buckets[start] = [0, 0]
        start += dt.timedelta(days=step)
    for row, day in zip(rows, days, strict=True):
        key = first + dt.timedelta(days=(day - first).days // step * step)
        buckets[key][0] += 1
        buckets[key][1] += (row.score or 0.0) >= SOLVED
    return [(k, v[0], v[1]) for k, v in buckets.items()], "day" if step == 1 else "week"


def duration_text(value: dt.timedelta | None) -> str:
    """'3 min', '2 h 5 min', '4 days 3 h': short, for tables."""
    if value is None:
        return "–"
    seconds = int(value.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} days {hours} h" if hours else f"{days} days"
