"""Attempts at assessments, every saved answer, and per-student accommodations."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column, utcnow


class AssessmentAttempt(Base):
    """One student's attempt: the items drawn with its seed, its deadline and its outcome."""

    __tablename__ = "assessment_attempts"
    # Numbered within an offering (0014): each offering has its own attempts at an assessment.
    __table_args__ = (
        UniqueConstraint(
            "user_id",
            "assessment_slug",
            "offering_id",
            "number",
            name="uq_assessment_attempts_number",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    course_slug: Mapped[str] = mapped_column(String(100))
    offering_id: Mapped[int | None] = mapped_column(Integer, default=None, index=True)
    assessment_slug: Mapped[str] = mapped_column(String(100), index=True)
    number: Mapped[int] = mapped_column(Integer)  # 1 for the first attempt
    seed: Mapped[int] = mapped_column(Integer)
    items: Mapped[list[dict[str, Any]]] = mapped_column(JSON)  # [{"key", "part", "points"}]
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)  # open_during, frozen at the start
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    deadline: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(20), default="open", index=True)  # or submitted
    submitted_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    submitted_by: Mapped[str | None] = mapped_column(String(20), default=None)  # student|clock
    release_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    score: Mapped[float | None] = mapped_column(Float, default=None)  # None: still grading
    results: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)


class AssessmentAnswer(Base):
    """The latest saved answer to one item of one attempt (written on every autosave)."""

    __tablename__ = "assessment_answers"
    __table_args__ = (UniqueConstraint("attempt_id", "item_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[int] = mapped_column(
        ForeignKey("assessment_attempts.id", ondelete="CASCADE"), index=True
    )
    item_key: Mapped[str] = mapped_column(String(220))
    value: Mapped[Any] = mapped_column(JSON)
    saves: Mapped[int] = mapped_column(Integer, default=1)
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL"), default=None, index=True
    )
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Accommodation(Base):
    """Extra time and/or a different window for one student on one assessment, in one offering."""

    __tablename__ = "assessment_accommodations"
    # One per offering (0014; rows from before it got the first offering): an extension given
    # in one term does not apply in another, and each term may give its own.
    __table_args__ = (
        UniqueConstraint(
            "user_id", "assessment_slug", "offering_id", name="uq_assessment_accommodations_item"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    course_slug: Mapped[str] = mapped_column(String(100))
    offering_id: Mapped[int | None] = mapped_column(Integer, default=None, index=True)
    assessment_slug: Mapped[str] = mapped_column(String(100))
    extra_minutes: Mapped[float] = mapped_column(Float, default=0.0)
    opens_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    closes_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    reason: Mapped[str] = mapped_column(Text, default="")
    set_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()
