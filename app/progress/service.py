"""Recording what a student read and how each quiz attempt went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import (
    BindParameter,
    DateTime,
    Integer,
    String,
    Table,
    bindparam,
    func,
    insert,
    literal_column,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.courses.first import first_course_slug
from app.db import ONE_STATEMENT, read_rows
from app.events import grade_recorded
from app.models_base import utcnow
from app.offerings.place import Place
from app.offerings.service import offering_for_work
from app.progress.models import LessonRead, QuizAttempt


@dataclass(frozen=True)
class LessonOpened:
    """What opening a lesson found: whether this was the first time, and the quiz attempts."""

    newly_read: bool
    quiz_attempts: int


_USER: BindParameter[int] = bindparam("user_id")
_LESSON: BindParameter[str] = bindparam("lesson_slug")
_COURSE: BindParameter[str] = bindparam("course_slug")  # a quiz is its course's own
_READ = select(LessonRead.id).where(
    LessonRead.user_id == _USER,
    LessonRead.course_slug == _COURSE,  # a read is of its course's lesson (0025)
    LessonRead.lesson_slug == _LESSON,
)
_ATTEMPTS = (
    select(func.count(QuizAttempt.id))
    .where(
        QuizAttempt.user_id == _USER,
        QuizAttempt.lesson_slug == _LESSON,
        QuizAttempt.course_slug == _COURSE,
    )
    .scalar_subquery()
)
# Built once (issue 23). SQLite: a lesson view asks both things in one statement, and a first
# view adds its row with a plain INSERT instead of a unit-of-work flush.
_LESSON_STATE = select(_READ.scalar_subquery(), _ATTEMPTS)
_ADD_READ = insert(cast(Table, LessonRead.__table__))
# PostgreSQL: all of it in one statement, a first view or not, with no transaction around it
# (ONE_STATEMENT; issue 23: each statement cost about a third of a millisecond of the web
# process's CPU). The row goes in only when none is there; two tabs at once meet ON CONFLICT
# and exactly one of them counts as the first view.
_ADDED = (
    pg_insert(cast(Table, LessonRead.__table__))
    .from_select(
        ["user_id", "course_slug", "lesson_slug", "created_at"],
        select(
            _USER.cast(Integer),
            _COURSE.cast(String),
            _LESSON.cast(String),
            bindparam("created_at", type_=DateTime(timezone=True)),
        ).where(~_READ.exists()),
    )
    .on_conflict_do_nothing(index_elements=["user_id", "course_slug", "lesson_slug"])
    .returning(literal_column("1"))
    .cte("added")
)
_OPEN_LESSON_PG = select(select(func.count()).select_from(_ADDED).scalar_subquery(), _ATTEMPTS)


def open_lesson(
    *, session: Session, user_id: int, lesson_slug: str, course_slug: str | None = None
) -> LessonOpened:
    """Note the first time a student opens a lesson, and count their attempts at its quiz in
    this course (None: the first course)."""
    course = course_slug or first_course_slug()
    params = {"user_id": user_id, "lesson_slug": lesson_slug, "course_slug": course}
    if session.get_bind().dialect.name == "postgresql":
        added, attempts = session.execute(
            _OPEN_LESSON_PG, {**params, "created_at": utcnow()}, execution_options=ONE_STATEMENT
        ).one()
        session.commit()  # nothing left to commit outside a transaction (app/db.py)
        return LessonOpened(newly_read=bool(added), quiz_attempts=int(attempts or 0))
    read_id, attempts = read_rows(session, _LESSON_STATE, params).one()
    if read_id is not None:
        return LessonOpened(newly_read=False, quiz_attempts=int(attempts or 0))
    try:
        read = {"user_id": user_id, "course_slug": course, "lesson_slug": lesson_slug}
        session.execute(_ADD_READ, read, execution_options=ONE_STATEMENT)
        session.commit()  # PostgreSQL: nothing left to commit (app/db.py); SQLite commits here
    except IntegrityError:
        # Two tabs opened the lesson at once; the other request already recorded it.
        session.rollback()
        return LessonOpened(newly_read=False, quiz_attempts=int(attempts or 0))
    return LessonOpened(newly_read=True, quiz_attempts=int(attempts or 0))


def record_lesson_read(
    *, session: Session, user_id: int, lesson_slug: str, course_slug: str | None = None
) -> bool:
    """Note the first time a student opens a lesson; True only when this call added the row."""
    opened = open_lesson(
        session=session, user_id=user_id, lesson_slug=lesson_slug, course_slug=course_slug
    )
    return opened.newly_read


def lessons_read(*, session: Session, user_id: int, course_slug: str | None = None) -> set[str]:
    """Slugs of the lessons this student has opened in one course (None: the first course)."""
    course = course_slug or first_course_slug()
    rows = session.scalars(
        select(LessonRead.lesson_slug).where(
            LessonRead.user_id == user_id, LessonRead.course_slug == course
        )
    )
    return set(rows)


def save_quiz_attempt(
    *,
    session: Session,
    user_id: int,
    lesson_slug: str,
    answers: dict[str, Any],
    results: dict[str, Any],
    score: float,
    graded_in: tuple[str, str | None] | None = None,
    place: Place | None = None,
) -> QuizAttempt:
    """Store one graded attempt; retakes add rows, nothing is overwritten.

    `graded_in` is (course slug, content version); default: the first course, version unknown.
    """
    attempt = QuizAttempt(
        user_id=user_id, lesson_slug=lesson_slug, answers=answers, results=results, score=score
    )
    if graded_in is not None:
        attempt.course_slug, attempt.content_version = graded_in
    # The offering it counts in: a student of two terms of one course keeps two grades.
    attempt.offering_id = offering_for_work(
        session=session,
        user_id=user_id,
        course_slug=graded_in[0] if graded_in is not None else first_course_slug(),
        named=place.offering_id if place is not None else None,
    )
    session.add(attempt)
    # Same transaction as the attempt: the LMS gradebook gets it even after a restart.
    grade_recorded(session=session, user_id=user_id, kind="quiz", slug=lesson_slug)
    session.commit()
    return attempt


def quiz_attempts(
    *, session: Session, user_id: int, lesson_slug: str, course_slug: str | None = None
) -> list[QuizAttempt]:
    """This student's attempts at one quiz of this course (None: the first), newest first."""
    return list(
        session.scalars(
            select(QuizAttempt)
            .where(
                QuizAttempt.user_id == user_id,
                QuizAttempt.lesson_slug == lesson_slug,
                QuizAttempt.course_slug == (course_slug or first_course_slug()),
            )
            .order_by(QuizAttempt.created_at.desc(), QuizAttempt.id.desc())
        )
    )


_LATEST_ATTEMPT = (
    select(QuizAttempt)
    .where(
        QuizAttempt.user_id == _USER,
        QuizAttempt.lesson_slug == _LESSON,
        QuizAttempt.course_slug == _COURSE,
    )
    .order_by(QuizAttempt.created_at.desc(), QuizAttempt.id.desc())
    .limit(1)
)
_COUNT_ATTEMPTS = select(func.count(QuizAttempt.id)).where(
    QuizAttempt.user_id == _USER,
    QuizAttempt.lesson_slug == _LESSON,
    QuizAttempt.course_slug == _COURSE,
)


def _quiz_params(user_id: int, lesson_slug: str, course_slug: str | None) -> dict[str, object]:
    return {
        "user_id": user_id,
        "lesson_slug": lesson_slug,
        "course_slug": course_slug or first_course_slug(),
    }


def latest_quiz_attempt(
    *, session: Session, user_id: int, lesson_slug: str, course_slug: str | None = None
) -> QuizAttempt | None:
    """The most recent attempt at one quiz of this course (None: the first), if any."""
    return session.scalar(_LATEST_ATTEMPT, _quiz_params(user_id, lesson_slug, course_slug))


def count_quiz_attempts(
    *, session: Session, user_id: int, lesson_slug: str, course_slug: str | None = None
) -> int:
    """How many times this student has submitted this quiz of this course (None: the first)."""
    count = session.scalar(_COUNT_ATTEMPTS, _quiz_params(user_id, lesson_slug, course_slug))
    return int(count or 0)
