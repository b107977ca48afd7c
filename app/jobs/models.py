"""The `jobs` table: background work that is not a submission (regrade, check, LMS post, hand-in).

A submission is its own job row (`submissions`); every other kind of work is a row here, with
the same lease columns, so one lease rule (`app/jobs/tasks.py`) and one reaper serve them all.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column


class Job(Base):
    """One typed job: its kind and payload, its state, its lease and what it produced."""

    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), index=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # queued -> running -> done | failed (failed: the job gave up after `attempts` runs)
    state: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    # What the job is about, for lookups ("regrade:12", "check:<course>/<exercise>").
    subject: Mapped[str | None] = mapped_column(String(200), default=None, index=True)
    course_slug: Mapped[str | None] = mapped_column(String(64), default=None)
    offering_id: Mapped[int | None] = mapped_column(
        ForeignKey("offerings.id", ondelete="SET NULL"), default=None
    )
    created_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # also the lease's fencing token
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), default=None
    )
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = created_at_column()
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
