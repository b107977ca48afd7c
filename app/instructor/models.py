"""What instructors change: replaced reports, score overrides, deadline extensions, regrades."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column, offering_column


class RegradeJob(Base):
    """One re-grade of every stored submission of an exercise in one course's offering, with
    its progress (another offering's or course's work at that slug is not its to touch)."""

    __tablename__ = "regrade_jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    exercise_slug: Mapped[str] = mapped_column(String(100), index=True)
    # Where its staff started it (migration 0022); NULL offering: from before, the course's first.
    course_slug: Mapped[str] = mapped_column(String(64))
    offering_id: Mapped[int | None] = offering_column()
    status: Mapped[str] = mapped_column(String(20), default="queued")
    total: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)
    changed: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    errors: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    started_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    heartbeat_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class SubmissionReport(Base):
    """A report a regrade replaced; the current report stays on the submission row."""

    __tablename__ = "submission_reports"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    regrade_job_id: Mapped[int | None] = mapped_column(
        ForeignKey("regrade_jobs.id", ondelete="SET NULL"), default=None, index=True
    )
    verdict: Mapped[str | None] = mapped_column(String(40), default=None)
    score: Mapped[float | None] = mapped_column(Float, default=None)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    graded_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    # The course version the replaced report was graded against (the row holds the new one).
    content_version: Mapped[str | None] = mapped_column(String(64), default=None)
    replaced_at: Mapped[dt.datetime] = created_at_column()


class ScoreOverride(Base):
    """Every manual score change, kept so the current override can always be explained."""

    __tablename__ = "score_overrides"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    instructor_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    score: Mapped[float | None] = mapped_column(Float, default=None)  # None: override removed
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = created_at_column()


class GradeScheme(Base):
    """How an offering weighs its categories into a course grade; none: the default weights."""

    __tablename__ = "grade_schemes"

    offering_id: Mapped[int] = mapped_column(
        ForeignKey("offerings.id", ondelete="CASCADE"), primary_key=True
    )
    weights: Mapped[dict[str, float]] = mapped_column(JSON, default=dict)
    drop_lowest: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    set_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    updated_at: Mapped[dt.datetime] = created_at_column()
