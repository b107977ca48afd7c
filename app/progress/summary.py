"""A student's standing in the whole course, for the home page: one query in all."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import (
    BindParameter,
    Integer,
    and_,
    bindparam,
    case,
    cast,
    func,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from app.content.loader import Exercise, Lesson
from app.db import read_rows
from app.progress.models import LessonRead, QuizAttempt
from app.submissions.models import PRACTICE, Submission

ExerciseState = Literal["solved", "attempted", "untouched"]
Kind = Literal["lesson", "exercise"]
STATE_WORDS: dict[str, str] = {
    "solved": "Solved",
    "attempted": "Attempted",
    "untouched": "Not started",
}


@dataclass(frozen=True)
class QuizScore:
    """Questions right out of questions asked, as stored with one attempt."""

    correct: int
    total: int

    def __str__(self) -> str:
        return f"{self.correct}/{self.total}"


@dataclass(frozen=True)
class LessonProgress:
    """Whether a lesson was opened and how its quiz went."""

    read: bool
    quiz_attempts: int = 0
    best: QuizScore | None = None
    latest: QuizScore | None = None


@dataclass(frozen=True)
class ExerciseProgress:
    """Where a student stands on one exercise; scores count submit mode only (all tests)."""

    state: ExerciseState
    submissions: int = 0
    best_score: float | None = None
    submitted: int = 0

    @property
    def solved(self) -> bool:
        """Accepted at least once in submit mode."""
        return self.state == "solved"

    @property
    def words(self) -> str:
        """The state as the page prints it."""
        return STATE_WORDS[self.state]

    @property
    def best_percent(self) -> int | None:
        """Best submit-mode score as a whole percentage, if there is one."""
        return None if self.best_score is None else round(100 * self.best_score)


UNTOUCHED = ExerciseProgress(state="untouched")


@dataclass(frozen=True)
class NextStep:
    """Where the 'Continue' link on the home page points, and why."""

    kind: Kind
    slug: str
    title: str
    reason: str

    @property
    def url(self) -> str:
        """The page to open."""
        return f"/{self.kind}s/{self.slug}"


@dataclass(frozen=True)
class CourseProgress:
    """Everything the home page shows about one student."""

    lessons: dict[str, LessonProgress]
    exercises: dict[str, ExerciseProgress]
    lessons_read: int
    lessons_total: int
    exercises_solved: int
    exercises_total: int
    next_step: NextStep | None

    @property
    def done(self) -> int:
        """Lessons read plus exercises solved."""
        return self.lessons_read + self.exercises_solved

    @property
    def total(self) -> int:
        """Lessons plus exercises."""
        return self.lessons_total + self.exercises_total

    @property
    def percent(self) -> int:
        """Overall completion as a whole percentage."""
        return round(100 * self.done / self.total) if self.total else 0


def _aware(value: dt.datetime) -> dt.datetime:
    """SQLite hands back naive datetimes; they were written in UTC."""
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


_ACCEPTED = and_(Submission.mode == "submit", Submission.verdict == "accepted")
_STATS_COLUMNS = (
    Submission.exercise_slug,
    func.count(Submission.id),
    func.max(case((_ACCEPTED, 1), else_=0)),
    func.max(case((Submission.mode == "submit", Submission.score), else_=None)),
    func.sum(case((Submission.mode == "submit", 1), else_=0)),
)


def _exercise_progress(count: Any, solved: Any, best: Any, submitted: Any) -> ExerciseProgress:
    state: ExerciseState = "solved" if solved else "attempted"
    best_score = None if best is None else float(best)
    return ExerciseProgress(state, int(count), best_score, int(submitted or 0))


def exercise_stats(
    *, session: Session, user_id: int, course_slug: str, slugs: Iterable[str] | None = None
) -> dict[str, ExerciseProgress]:
    """Per-exercise standing in one course from one grouped query over the student's
    submissions (another course's exercise of the same slug is another exercise)."""
    query = (
        select(*_STATS_COLUMNS)
        .where(
            Submission.user_id == user_id,
            Submission.course_slug == course_slug,
            Submission.purpose == PRACTICE,
        )
        .group_by(Submission.exercise_slug)
    )
    if slugs is not None:
        query = query.where(Submission.exercise_slug.in_(list(slugs)))
    return {
        str(slug): _exercise_progress(count, solved, best, submitted)
        for slug, count, solved, best, submitted in session.execute(query)
    }


def _quiz_score(results: Any, score: float, questions: int) -> QuizScore:
    stored = results.get("questions") if isinstance(results, dict) else None
    if isinstance(stored, list) and stored:
        right = sum(1 for q in stored if isinstance(q, dict) and q.get("correct"))
        return QuizScore(right, len(stored))
    return QuizScore(round(score * questions), questions)


_USER: BindParameter[int] = bindparam("user_id")
_COURSE: BindParameter[str] = bindparam("course_slug")
_SLUG, _COUNT, _SOLVED, _BEST, _SUBMITTED = _STATS_COLUMNS
# Built once (issue 23). Reads, quiz attempts and each exercise's standing with its latest
# submission time, in one statement (each statement is about a third of a millisecond of the web
# process's CPU). The quiz attempts come first so the union's columns carry their types (the
# JSON results, the timestamps). The sixth column is an attempt's or a read's id, or how many
# submissions an exercise has.
_PROGRESS_ROWS = union_all(
    select(
        literal("quiz").label("kind"),
        QuizAttempt.lesson_slug,
        QuizAttempt.created_at,
        QuizAttempt.score,
        QuizAttempt.results,
        QuizAttempt.id,
        cast(null(), Integer),  # typed: PostgreSQL would make two untyped NULLs text
        cast(null(), Integer),
    ).where(QuizAttempt.user_id == _USER, QuizAttempt.course_slug == _COURSE),
    select(
        literal("read"),
        LessonRead.lesson_slug,
        LessonRead.created_at,
        null(),
        null(),
        LessonRead.id,
        null(),
        null(),
    ).where(LessonRead.user_id == _USER, LessonRead.course_slug == _COURSE),
    select(
        literal("exercise"),
        _SLUG,
        func.max(Submission.created_at),
        _BEST,
        null(),
        _COUNT,
        _SOLVED,
        _SUBMITTED,
    )
    .where(
        Submission.user_id == _USER,
        Submission.course_slug == _COURSE,
        Submission.purpose == PRACTICE,
    )
    .group_by(Submission.exercise_slug),
)
_LAST_SUBMISSION = (
    select(Submission.exercise_slug, Submission.created_at)
    .where(
        Submission.user_id == _USER,
        Submission.course_slug == _COURSE,
        Submission.purpose == PRACTICE,
    )
    .order_by(Submission.created_at.desc(), Submission.id.desc())
    .limit(1)
)


def _lesson_progress(
    rows: Iterable[Any], lessons: Sequence[Lesson]
) -> tuple[dict[str, LessonProgress], list[tuple[dt.datetime, Kind, str]]]:
    """Each lesson's read and quiz attempts; also returns them as dated activity."""
    activity: list[tuple[dt.datetime, Kind, str]] = []
    read: set[str] = set()
    sizes = {les.meta.slug: len(les.meta.quiz) for les in lessons}
    attempts: dict[str, list[tuple[dt.datetime, int, float, QuizScore]]] = {}
    for kind, slug, when, score, results, row_id, _solved, _submitted in rows:
        if kind == "read":
            read.add(str(slug))
        else:
            quiz = _quiz_score(results, float(score), sizes.get(str(slug), 0))
            attempts.setdefault(str(slug), []).append((_aware(when), int(row_id), score, quiz))
        activity.append((_aware(when), "lesson", str(slug)))
    progress: dict[str, LessonProgress] = {}
    for lesson in lessons:
        slug = lesson.meta.slug
        mine = attempts.get(slug, [])
        latest = max(mine, key=lambda a: (a[0], a[1]))[3] if mine else None
        best = max(mine, key=lambda a: (a[2], a[0], a[1]))[3] if mine else None
        progress[slug] = LessonProgress(slug in read, len(mine), best, latest)
    return progress, activity


def _exercise_rows(
    session: Session, asked: dict[str, Any], rows: Iterable[Any]
) -> tuple[dict[str, ExerciseProgress], tuple[dt.datetime, str] | None]:
    """Every exercise's standing, and the latest submission (time, exercise).

    Only when two exercises share the latest time to the microsecond does a second query ask
    which submission came last, as the list of submissions orders them.
    """
    stats: dict[str, ExerciseProgress] = {}
    newest: list[tuple[dt.datetime, str]] = []
    for _kind, slug, last, best, _results, count, solved, submitted in rows:
        stats[str(slug)] = _exercise_progress(count, solved, best, submitted)
        when = _aware(last)
        if not newest or when > newest[0][0]:
            newest = [(when, str(slug))]
        elif when == newest[0][0]:
            newest.append((when, str(slug)))
    if len(newest) > 1:
        row = read_rows(session, _LAST_SUBMISSION, asked).one()
        newest = [(_aware(row[1]), str(row[0]))]
    return stats, newest[0] if newest else None


def course_sequence(
    lessons: Sequence[Lesson], exercises: Sequence[Exercise]
) -> list[tuple[Kind, str, str]]:
    """Course order: each lesson followed by the exercises that practise it; loose ones last."""
    sequence: list[tuple[Kind, str, str]] = []
    placed: set[str] = set()
    for lesson in lessons:
        sequence.append(("lesson", lesson.meta.slug, lesson.meta.title))
        for ex in exercises:
            if ex.meta.lesson == lesson.meta.slug:
                sequence.append(("exercise", ex.meta.slug, ex.meta.title))
                placed.add(ex.meta.slug)
    sequence.extend(
        ("exercise", ex.meta.slug, ex.meta.title) for ex in exercises if ex.meta.slug not in placed
    )
    return sequence


def next_step(
    sequence: Sequence[tuple[Kind, str, str]],
    done: set[tuple[Kind, str]],
    latest: tuple[Kind, str] | None,
) -> NextStep | None:
    """The unsolved exercise just worked on, else the next unfinished item after the latest one."""
    titles = {(kind, slug): title for kind, slug, title in sequence}
    if latest is not None and latest[0] == "exercise" and latest not in done and latest in titles:
        return NextStep(latest[0], latest[1], titles[latest], "You were working on")
    keys = [(kind, slug) for kind, slug, _ in sequence]
    start = keys.index(latest) + 1 if latest in keys else 0
    for key in keys[start:] + keys[:start]:
        if key not in done:
            reason = "Next up" if latest is not None else "Start here"
            return NextStep(key[0], key[1], titles[key], reason)
    return None


def course_progress(
    *,
    session: Session,
    user_id: int,
    course_slug: str,
    lessons: Sequence[Lesson],
    exercises: Sequence[Exercise],
) -> CourseProgress:
    """The home page's view of one student in one course: reads, quiz scores, exercise states,
    next step (another course's quiz or exercise of the same slug is another one)."""
    asked = {"user_id": user_id, "course_slug": course_slug}
    rows = read_rows(session, _PROGRESS_ROWS, asked).all()
    lesson_progress, activity = _lesson_progress((r for r in rows if r[0] != "exercise"), lessons)
    stats, last = _exercise_rows(session, asked, (r for r in rows if r[0] == "exercise"))
    exercise_progress = {ex.meta.slug: stats.get(ex.meta.slug, UNTOUCHED) for ex in exercises}
    if last is not None:
        activity.append((last[0], "exercise", last[1]))
    # On a tie the submission (added last) wins: max keeps the first maximum it meets.
    latest = max(reversed(activity), key=lambda a: a[0]) if activity else None
    done: set[tuple[Kind, str]] = {("lesson", s) for s, p in lesson_progress.items() if p.read}
    done |= {("exercise", s) for s, p in exercise_progress.items() if p.solved}
    step = next_step(
        course_sequence(lessons, exercises),
        done,
        (latest[1], latest[2]) if latest is not None else None,
    )
    return CourseProgress(
        lessons=lesson_progress,
        exercises=exercise_progress,
        lessons_read=sum(p.read for p in lesson_progress.values()),
        lessons_total=len(lessons),
        exercises_solved=sum(p.solved for p in exercise_progress.values()),
        exercises_total=len(exercises),
        next_step=step,
    )
