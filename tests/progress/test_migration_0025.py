"""0025 gives each lesson read its course: rows from before are the first course's, two courses
then keep their own read of one lesson slug, and the way down keeps the earliest read; up, down
and up again on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head
from tests.postgres import throwaway_database

BEFORE = "0024_course_of_hints_drafts"
FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
OLD = "INSERT INTO lesson_reads (user_id, lesson_slug, created_at) VALUES (1, :lesson, :at)"
NEW = (
    "INSERT INTO lesson_reads (user_id, lesson_slug, created_at, course_slug) "
    "VALUES (1, :lesson, :at, :course)"
)
EARLY, LATE = "2026-11-01 09:00:00+00:00", "2026-11-02 09:00:00+00:00"


def _write(sql: str, **values: Any) -> None:
    with get_engine().begin() as db:
        db.execute(text(sql), values)


def _rows(sql: str) -> list[tuple[Any, ...]]:
    with get_engine().connect() as db:
        return [tuple(row) for row in db.execute(text(sql)).all()]


def _has_course() -> bool:
    return "course_slug" in {c["name"] for c in inspect(get_engine()).get_columns("lesson_reads")}


def _refused(sql: str, **values: Any) -> bool:
    """Whether the database refuses the insert (the unique key or NOT NULL)."""
    try:
        _write(sql, **values)
    except IntegrityError:
        return True
    return False


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    assert not _has_course()
    _write(
        "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
        "VALUES (1, 'a@b.c', 'A', 'x', 'student', CURRENT_TIMESTAMP, :no)",
        no=False,
    )
    _write(OLD, lesson="multi-head", at=LATE)
    _write(OLD, lesson="why-position", at=EARLY)
    upgrade_head()
    assert _has_course()
    assert _rows("SELECT course_slug, lesson_slug FROM lesson_reads ORDER BY lesson_slug") == [
        (FIRST, "multi-head"),
        (FIRST, "why-position"),
    ]
    # The other course's lesson of the same slug is read on its own, once.
    _write(NEW, lesson="multi-head", at=EARLY, course=SECOND)
    assert _refused(NEW, lesson="multi-head", at=LATE, course=SECOND)
    assert _refused(NEW, lesson="multi-head", at=LATE, course=FIRST)
    assert _refused(OLD, lesson="softmax", at=LATE)  # a new row names its course
    command.downgrade(alembic_config(), BEFORE)
    assert not _has_course()
    # One read per slug again: the earliest (the second course's) is kept.
    kept = _rows("SELECT lesson_slug, created_at FROM lesson_reads ORDER BY lesson_slug")
    assert [(slug, str(at)[:10]) for slug, at in kept] == [
        ("multi-head", "2026-11-01"),
        ("why-position", "2026-11-01"),
    ]
    assert _refused(OLD, lesson="multi-head", at=LATE)
    upgrade_head()
    assert _has_course()
    assert _rows("SELECT course_slug FROM lesson_reads") == [(FIRST,), (FIRST,)]


def test_sqlite(data_dir: Path) -> None:
    _check()


@pytest.fixture
def postgres(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A throwaway PostgreSQL database; fails rather than skips in CI."""
    with throwaway_database(monkeypatch, tmp_path):
        upgrade_head()
        yield


def test_postgresql(postgres: None) -> None:
    _check()
