"""0019 adds the authoring tables and removes them again, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head
from tests.postgres import throwaway_database

TABLES = {"course_editors", "authoring_drafts", "authoring_conflicts", "content_versions"}


def _round_trip() -> None:
    assert set(inspect(get_engine()).get_table_names()) >= TABLES
    with get_engine().begin() as db:
        db.execute(
            text(
                "INSERT INTO users (id, email, name, password_hash, role, created_at) "
                "VALUES (7, 'e@example.org', '', 'x', 'instructor', CURRENT_TIMESTAMP)"
            )
        )
        insert = (
            "INSERT INTO course_editors (course_slug, user_id, created_at) "
            "VALUES ('c', 7, CURRENT_TIMESTAMP)"
        )
        db.execute(text(insert))
    with pytest.raises(IntegrityError, match=r"(?i)unique"), get_engine().begin() as db:
        db.execute(text(insert))  # one row per course and account
    command.downgrade(alembic_config(), "0014_assessments_per_offering")
    assert not set(inspect(get_engine()).get_table_names()) & TABLES
    upgrade_head()
    assert set(inspect(get_engine()).get_table_names()) >= TABLES


def test_sqlite(data_dir: object) -> None:
    _round_trip()


@pytest.fixture
def postgres_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """A throwaway database on the machine's PostgreSQL."""
    with throwaway_database(monkeypatch, tmp_path) as url:
        yield url


def test_postgresql(postgres_url: str) -> None:
    upgrade_head()
    _round_trip()
