"""Column helpers shared by every domain's models."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime
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
