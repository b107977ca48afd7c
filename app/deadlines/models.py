"""Due dates per offering, students' extensions and each offering's late policy."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column, offering_column


class DeadlineExtension(Base):
    """A later due date for one student on one exercise or quiz, in one offering."""

    __tablename__ = "deadline_extensions"
    # Rows from before 0010 have no offering: they belong to the first one (the migration
    # fills it in); a student of two offerings has one extension in each.
    __table_args__ = (
        UniqueConstraint(
            "offering_id", "user_id", "kind", "slug", name="uq_deadline_extensions_item"
        ),
    )

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


class OfferingDue(Base):
    """An offering's own due date for an exercise or a quiz, in place of the content's."""

    __tablename__ = "offering_dues"
    __table_args__ = (
        UniqueConstraint("offering_id", "kind", "slug", name="uq_offering_dues_item"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    offering_id: Mapped[int] = mapped_column(
        ForeignKey("offerings.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(10))  # "exercise" or "quiz"
    slug: Mapped[str] = mapped_column(String(100))
    due_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    set_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()


class LatePolicy(Base):
    """What an offering does with late work; an offering without a row accepts and flags it."""

    __tablename__ = "late_policies"

    offering_id: Mapped[int] = mapped_column(
        ForeignKey("offerings.id", ondelete="CASCADE"), primary_key=True
    )
    mode: Mapped[str] = mapped_column(String(10), default="accept")  # accept, penalty, refuse
    percent_per_day: Mapped[float] = mapped_column(Float, default=0.0)
    max_percent: Mapped[float] = mapped_column(Float, default=100.0)  # the most a score loses
    grace_minutes: Mapped[int] = mapped_column(Integer, default=0)
    set_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    updated_at: Mapped[dt.datetime] = created_at_column()
