"""Submissions, their grade reports, and students' saved drafts."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.courses.first import first_course_slug
from app.db import Base
from app.models_base import created_at_column, offering_column, utcnow

PRACTICE = "practice"  # a submission's purpose when a student practises (not an exam's answer)


def attempt_purpose(attempt_id: int) -> str:
    """The purpose of the code handed in as an answer of this assessment attempt."""
    return f"attempt:{attempt_id}"


def attempt_of(purpose: str) -> int | None:
    """The assessment attempt a purpose names, or None for practice."""
    head, _, tail = purpose.partition(":")
    return int(tail) if head == "attempt" and tail.isdigit() else None


class Submission(Base):
    """Code sent for grading; the row is written before any job is queued."""

    __tablename__ = "submissions"
    # The gradebook's rows of one offering, answered from the index alone on PostgreSQL
    # (migration 0011; issue 27's 2 million submissions; the purpose since 0016).
    __table_args__ = (
        Index(
            "ix_submissions_gradebook",
            "offering_id",
            "user_id",
            "exercise_slug",
            postgresql_include=["mode", "status", "score", "created_at", "late", "id", "purpose"],
        ),
        # An offering's wrong answers to one exercise, grouped by behaviour (migration 0017).
        Index("ix_submissions_behaviour", "offering_id", "exercise_slug", "behaviour_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    exercise_slug: Mapped[str] = mapped_column(String(100), index=True)
    # Which course's exercise, and the content version it was graded against (issue 27).
    course_slug: Mapped[str] = mapped_column(String(64), index=True, default=first_course_slug)
    content_version: Mapped[str | None] = mapped_column(String(64), default=None)
    framework: Mapped[str] = mapped_column(String(20))
    mode: Mapped[str] = mapped_column(String(10), default="submit")
    code: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default="queued", index=True)
    verdict: Mapped[str | None] = mapped_column(String(40), default=None)
    score: Mapped[float | None] = mapped_column(Float, default=None)
    message: Mapped[str | None] = mapped_column(Text, default=None)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    duration_ms: Mapped[float | None] = mapped_column(Float, default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    # Instructor tools: `score` is the effective score (the override when one is set, else the
    # report's); the report keeps the grader's own score.
    late: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    override_score: Mapped[float | None] = mapped_column(Float, default=None)
    override_reason: Mapped[str | None] = mapped_column(Text, default=None)
    override_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    override_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    offering_id: Mapped[int | None] = offering_column()
    # A lab's write-up (issue 49, migration 0020): what the student says of the run; a person
    # grades it with the lab's rubric, and only that grade counts (the run can be faked).
    writeup: Mapped[str | None] = mapped_column(Text, default=None)
    # Why it exists (issue 47): practice, or `attempt:<id>`, an assessment attempt's answer,
    # which practice readers never count and its student sees only once the attempt's score is
    # released (migration 0016).
    purpose: Mapped[str] = mapped_column(String(40), default=PRACTICE, server_default=PRACTICE)
    # The report's behaviour key (docs/report-contract.md): equal keys, equal behaviour.
    behaviour_key: Mapped[str | None] = mapped_column(String(32), default=None)


def behaviour_key_of(report: dict[str, Any] | None) -> str | None:
    """The key a stored report's behaviour signature gives, when it has one."""
    found = ((report or {}).get("behaviour") or {}).get("key")
    return str(found) if found else None


class Draft(Base):
    """The student's latest editor contents per course's exercise and framework."""

    __tablename__ = "drafts"
    # Per course (0024): two courses may each have an exercise of this slug, each its own editor.
    __table_args__ = (
        UniqueConstraint(
            "user_id", "course_slug", "exercise_slug", "framework", name="uq_drafts_item"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    course_slug: Mapped[str] = mapped_column(String(100))  # the course of the exercise
    exercise_slug: Mapped[str] = mapped_column(String(100))
    framework: Mapped[str] = mapped_column(String(20))
    code: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )


class SubmissionComment(Base):
    """What a teacher wrote to a student about one submission, on a line or on the whole."""

    __tablename__ = "submission_comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    author_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    author_name: Mapped[str] = mapped_column(String(200), default="")  # as the student sees it
    text: Mapped[str] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer, default=None)  # 1-based; None: the whole
    created_at: Mapped[dt.datetime] = created_at_column()


class RegradeRequest(Base):
    """A student's request, once per exercise, that staff look at a grade again; answered in
    place (the answer, and any new score through an override, reach the student and the LMS)."""

    __tablename__ = "regrade_requests"
    __table_args__ = (UniqueConstraint("user_id", "exercise_slug", "course_slug", "offering_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    exercise_slug: Mapped[str] = mapped_column(String(100))
    course_slug: Mapped[str] = mapped_column(String(64))
    offering_id: Mapped[int | None] = offering_column()
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = created_at_column()
    answer: Mapped[str | None] = mapped_column(Text, default=None)
    answered_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    answered_name: Mapped[str] = mapped_column(String(200), default="")
    answered_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    new_score: Mapped[float | None] = mapped_column(Float, default=None)


def graded_by_hand(submission_id: int) -> str:
    """The `app.db.serialize` key a grading by hand and a write-up's save share: neither lands
    between the other's check and its write."""
    return f"grading by hand of submission {submission_id}"


class RubricGrade(Base):
    """A person's grading of one submission by its exercise's rubric (the latest counts)."""

    __tablename__ = "rubric_grades"

    submission_id: Mapped[int] = mapped_column(
        ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    applied: Mapped[list[str]] = mapped_column(JSON, default=list)  # rubric item ids
    manual_score: Mapped[float] = mapped_column(Float)  # the rubric's part alone, 0 to 1
    comment: Mapped[str] = mapped_column(Text, default="")
    grader_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    grader_name: Mapped[str] = mapped_column(String(200), default="")
    graded_at: Mapped[dt.datetime] = created_at_column()
