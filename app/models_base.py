"""Column helpers shared by every domain's models."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column


def utcnow() -> dt.datetime:
    """Timezone-aware now, so SQLite and PostgreSQL store the same thing."""
    return dt.datetime.now(dt.UTC)


def as_utc(value: dt.datetime) -> dt.datetime:
    """A stored or content datetime as aware UTC: SQLite hands back naive values, written in UTC."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def created_at_column() -> Mapped[dt.datetime]:
    """A non-null creation timestamp filled by the application."""
    return mapped_column(DateTime(timezone=True), default=utcnow, nullable=False)


def offering_column() -> Mapped[int | None]:
    """The offering a row belongs to; rows written before offerings existed got the first one."""
    return mapped_column(
        ForeignKey("offerings.id", ondelete="SET NULL"), nullable=True, default=None, index=True
    )
