"""A student's later due date, granted by an instructor and read when work is handed in."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column, offering_column


class DeadlineExtension(Base):
    """A later due date for one student on one exercise or quiz."""

    __tablename__ = "deadline_extensions"
    __table_args__ = (UniqueConstraint("user_id", "kind", "slug"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(10))  # "exercise" or "quiz" (slug of the lesson)
    slug: Mapped[str] = mapped_column(String(100))
    due_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    reason: Mapped[str] = mapped_column(Text, default="")
    offering_id: Mapped[int | None] = offering_column()
    granted_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()
