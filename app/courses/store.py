"""Courses added at run time and refreshes asked for, kept in the database for every process."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from app.courses.models import CourseFolder
from app.db import retry_conflicts
from app.models_base import as_utc, utcnow

log = logging.getLogger(__name__)
ADDED = "added"


def added_folders(session: Session) -> list[tuple[Path, str]]:
    """Folders added with `courses add`, oldest first; none when the table is not there yet."""
    try:
        rows = session.scalars(
            select(CourseFolder)
            .where(CourseFolder.folder.is_not(None))
            .order_by(CourseFolder.added_at, CourseFolder.slug)
        ).all()
    except SQLAlchemyError:  # a database not migrated yet still serves the built-in courses
        log.warning("course_folders cannot be read; run `python -m app migrate`", exc_info=True)
        session.rollback()
        return []
    return [(Path(row.folder), ADDED) for row in rows if row.folder]


def refresh_marks(session: Session) -> dict[str, dt.datetime]:
    """When a refresh was last asked for, per course slug (in UTC: SQLite returns times without
    a zone, and the watcher compares them with the times this process asked at)."""
    try:
        rows = session.execute(
            select(CourseFolder.slug, CourseFolder.refresh_requested_at).where(
                CourseFolder.refresh_requested_at.is_not(None)
            )
        ).all()
    except SQLAlchemyError:
        session.rollback()
        return {}
    return {slug: as_utc(at) for slug, at in rows if at is not None}


def add_folder(session: Session, *, slug: str, folder: Path) -> None:
    """Record an added course folder (again: the folder is updated)."""

    def store() -> None:
        row = session.get(CourseFolder, slug)
        if row is None:
            row = CourseFolder(slug=slug)
            session.add(row)
        row.folder = str(folder.resolve())
        row.refresh_requested_at = utcnow()
        session.commit()

    retry_conflicts(session, store)  # added twice at once: one row


def request_refresh(session: Session, *, slug: str) -> dt.datetime:
    """Ask every running process to refresh this course; returns the time of the request."""

    def store() -> dt.datetime:
        row = session.get(CourseFolder, slug)
        if row is None:
            row = CourseFolder(slug=slug, folder=None)
            session.add(row)
        at = row.refresh_requested_at = utcnow()
        session.commit()
        return at

    return retry_conflicts(session, store)  # two editors publishing at once: one row
