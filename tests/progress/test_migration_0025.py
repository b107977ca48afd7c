"""0025 gives each lesson read its course: rows from before are the first course's, two courses
then keep their own read of one lesson slug, and the way down keeps the earliest read; up, down
and up again on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head
from tests.migration_drill import refused, rows, write

BEFORE = "0024_course_of_hints_drafts"
FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
OLD = "INSERT INTO lesson_reads (user_id, lesson_slug, created_at) VALUES (1, :lesson, :at)"
NEW = (
    "INSERT INTO lesson_reads (user_id, lesson_slug, created_at, course_slug) "
    "VALUES (1, :lesson, :at, :course)"
)
EARLY, LATE = "2026-11-01 09:00:00+00:00", "2026-11-02 09:00:00+00:00"


def _has_course() -> bool:
    return "course_slug" in {c["name"] for c in inspect(get_engine()).get_columns("lesson_reads")}


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    assert not _has_course()
    write(
        "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
        "VALUES (1, 'a@b.c', 'A', 'x', 'student', CURRENT_TIMESTAMP, :no)",
        no=False,
    )
    write(OLD, lesson="multi-head", at=LATE)
    write(OLD, lesson="why-position", at=EARLY)
    upgrade_head()
    assert _has_course()
    assert rows("SELECT course_slug, lesson_slug FROM lesson_reads ORDER BY lesson_slug") == [
        (FIRST, "multi-head"),
        (FIRST, "why-position"),
    ]
    # The other course's lesson of the same slug is read on its own, once.
    write(NEW, lesson="multi-head", at=EARLY, course=SECOND)
    assert refused(NEW, lesson="multi-head", at=LATE, course=SECOND)
    assert refused(NEW, lesson="multi-head", at=LATE, course=FIRST)
    assert refused(OLD, lesson="softmax", at=LATE)  # a new row names its course
    command.downgrade(alembic_config(), BEFORE)
    assert not _has_course()
    # One read per slug again: the earliest (the second course's) is kept.
    kept = rows("SELECT lesson_slug, created_at FROM lesson_reads ORDER BY lesson_slug")
    assert [(slug, str(at)[:10]) for slug, at in kept] == [
        ("multi-head", "2026-11-01"),
        ("why-position", "2026-11-01"),
    ]
    assert refused(OLD, lesson="multi-head", at=LATE)
    upgrade_head()
    assert _has_course()
    assert rows("SELECT course_slug FROM lesson_reads") == [(FIRST,), (FIRST,)]


def test_sqlite(data_dir: Path) -> None:
    _check()


def test_postgresql(migrated_postgres: str) -> None:
    _check()
