"""Who may edit a course, the drafts they save, conflicts kept, and the versions they publish."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column, utcnow


class CourseEditor(Base):
    """A course-level role: this account may edit, preview and publish the course's content.

    Why per course, not per offering: the content is shared by every offering of the course, and
    teaching one offering does not make someone an author of the course.
    """

    __tablename__ = "course_editors"
    __table_args__ = (UniqueConstraint("course_slug", "user_id", name="uq_course_editors_user"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_slug: Mapped[str] = mapped_column(String(64), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    granted_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()


class AuthoringDraft(Base):
    """One file's unpublished text; students never see it, publish writes it to the folder."""

    __tablename__ = "authoring_drafts"
    __table_args__ = (UniqueConstraint("course_slug", "path", name="uq_authoring_drafts_path"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_slug: Mapped[str] = mapped_column(String(64), index=True)
    path: Mapped[str] = mapped_column(String(300))
    text: Mapped[str] = mapped_column(Text)
    # SHA-256 of the file on disk when the draft began; None when the file did not exist.
    disk_sha: Mapped[str | None] = mapped_column(String(64), default=None)
    updated_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, nullable=False
    )


class AuthoringConflict(Base):
    """A save that lost a race with newer text: kept here, never dropped, for the author."""

    __tablename__ = "authoring_conflicts"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_slug: Mapped[str] = mapped_column(String(64), index=True)
    path: Mapped[str] = mapped_column(String(300))
    text: Mapped[str] = mapped_column(Text)
    base: Mapped[str | None] = mapped_column(String(64), default=None)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()


class ContentVersion(Base):
    """One publish (or restore): author, message, commit, and each file's before and after."""

    __tablename__ = "content_versions"

    id: Mapped[int] = mapped_column(primary_key=True)
    course_slug: Mapped[str] = mapped_column(String(64), index=True)
    author_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    author: Mapped[str] = mapped_column(String(255), default="")
    message: Mapped[str] = mapped_column(Text, default="")
    commit: Mapped[str | None] = mapped_column(String(64), default=None)
    content_version: Mapped[str] = mapped_column(String(100), default="")
    # [{"path", "before": text or None, "after": text or None}]
    files: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    restored_from: Mapped[int | None] = mapped_column(Integer, default=None)
    created_at: Mapped[dt.datetime] = created_at_column()
