"""0021 adds the `jobs` table and removes it again, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head
from tests.postgres import throwaway_database


def _round_trip() -> None:
    assert "jobs" in inspect(get_engine()).get_table_names()
    with get_engine().begin() as db:
        db.execute(
            text(
                "INSERT INTO jobs (kind, payload, state, attempts, error, created_at) "
                "VALUES ('check', '{\"exercise\": \"x\"}', 'queued', 0, '', CURRENT_TIMESTAMP)"
            )
        )
        assert db.execute(text("SELECT kind, state FROM jobs")).one() == ("check", "queued")
    command.downgrade(alembic_config(), "0020_lab_writeup")
    assert "jobs" not in inspect(get_engine()).get_table_names()
    upgrade_head()
    assert "jobs" in inspect(get_engine()).get_table_names()


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
