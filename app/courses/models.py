"""Courses added from the command line or the admin page, and refreshes asked for there."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column


class CourseFolder(Base):
    """A course folder added at run time (`courses add`), or only a refresh mark (folder NULL).

    Why in the database: every web process and worker, on any machine, sees the same courses,
    and a refresh asked for by one process is picked up by all of them.
    """

    __tablename__ = "course_folders"

    slug: Mapped[str] = mapped_column(String(64), primary_key=True)
    folder: Mapped[str | None] = mapped_column(Text, default=None)
    added_at: Mapped[dt.datetime] = created_at_column()
    refresh_requested_at: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), default=None
    )
