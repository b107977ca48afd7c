"""A student's report of a problem with an exercise or a quiz question."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column, offering_column


class ProblemReport(Base):
    """One report: what it is about, the student's words, the submission then, who resolved it."""

    __tablename__ = "problem_reports"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(10))  # "exercise" or "quiz"
    slug: Mapped[str] = mapped_column(String(100), index=True)  # exercise or lesson slug
    question_id: Mapped[str | None] = mapped_column(String(100), default=None)
    submission_id: Mapped[int | None] = mapped_column(
        ForeignKey("submissions.id", ondelete="SET NULL"), default=None
    )
    message: Mapped[str] = mapped_column(Text)
    offering_id: Mapped[int | None] = offering_column()
    created_at: Mapped[dt.datetime] = created_at_column()
    resolved_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    resolved_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    # What staff wrote back when resolving it; the student sees it on their home page.
    reply: Mapped[str | None] = mapped_column(Text, default=None)
    replied_by_name: Mapped[str] = mapped_column(String(200), default="", server_default="")
