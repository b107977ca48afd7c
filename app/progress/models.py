"""What each student has read and answered."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.courses.first import first_course_slug
from app.db import Base
from app.models_base import created_at_column, offering_column


class LessonRead(Base):
    """A student opened a lesson (first time kept)."""

    __tablename__ = "lesson_reads"
    # Per course (0025): two courses may each have a lesson of this slug.
    __table_args__ = (
        UniqueConstraint("user_id", "course_slug", "lesson_slug", name="uq_lesson_reads_item"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    course_slug: Mapped[str] = mapped_column(String(100), default=first_course_slug)  # its lesson's
    lesson_slug: Mapped[str] = mapped_column(String(100), index=True)
    created_at: Mapped[dt.datetime] = created_at_column()


class QuizAttempt(Base):
    """One graded attempt at a lesson's quiz; retakes add rows."""

    __tablename__ = "quiz_attempts"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    lesson_slug: Mapped[str] = mapped_column(String(100), index=True)
    # Which course's lesson, and the content version it was graded against (issue 27).
    course_slug: Mapped[str] = mapped_column(String(64), index=True, default=first_course_slug)
    content_version: Mapped[str | None] = mapped_column(String(64), default=None)
    answers: Mapped[dict[str, Any]] = mapped_column(JSON)
    results: Mapped[dict[str, Any]] = mapped_column(JSON)
    score: Mapped[float] = mapped_column(Float)
    offering_id: Mapped[int | None] = offering_column()
    created_at: Mapped[dt.datetime] = created_at_column()


class HintReveal(Base):
    """A student opened one hint of a course's exercise (hints open in order, each once)."""

    __tablename__ = "hint_reveals"
    # Per course (0024): two courses may each have an exercise of this slug, with its own hints.
    __table_args__ = (
        UniqueConstraint(
            "user_id", "course_slug", "exercise_slug", "hint_number", name="uq_hint_reveals_item"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    course_slug: Mapped[str] = mapped_column(String(100))  # the course of the exercise
    exercise_slug: Mapped[str] = mapped_column(String(100), index=True)
    hint_number: Mapped[int] = mapped_column()  # 1 for hints/1.md
    created_at: Mapped[dt.datetime] = created_at_column()
