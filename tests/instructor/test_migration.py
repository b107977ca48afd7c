"""Migration 0002 (instructor tools) goes up and down on SQLite and on the real PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from alembic import command
from sqlalchemy import inspect, text

from app.config import get_settings
from app.db import dispose_engines, get_engine
from app.migrate import alembic_config, upgrade_head

NEW_TABLES = {"regrade_jobs", "submission_reports", "score_overrides", "deadline_extensions"}
NEW_COLUMNS = {"late", "override_score", "override_reason", "override_by", "override_at"}
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def _columns() -> set[str]:
    return {c["name"] for c in inspect(get_engine()).get_columns("submissions")}


def _up_down_up() -> None:
    upgrade_head()
    assert set(inspect(get_engine()).get_table_names()) >= NEW_TABLES
    assert _columns() >= NEW_COLUMNS
    with get_engine().begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (email, name, password_hash, role, created_at) "
                "VALUES ('a@b.c', 'A', 'x', 'student', CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO submissions (user_id, exercise_slug, framework, mode, code, status, "
                "attempts, created_at) VALUES (1, 'e', 'numpy', 'submit', '', 'done', 0, "
                "CURRENT_TIMESTAMP)"
            )
        )
        late = conn.execute(text("SELECT late FROM submissions")).scalar_one()
    assert late is False or late == 0  # existing rows are on time
    command.downgrade(alembic_config(), "0001")
    assert not NEW_TABLES & set(inspect(get_engine()).get_table_names())
    assert not NEW_COLUMNS & _columns()
    with get_engine().connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM submissions")).scalar_one() == 1
    upgrade_head()
    assert _columns() >= NEW_COLUMNS


def test_sqlite_up_down_up(data_dir: Path) -> None:
    _up_down_up()


@pytest.fixture
def postgres(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A throwaway PostgreSQL database; fails rather than skips in CI."""
    name = f"test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI: {exc}")
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    monkeypatch.setenv("DATABASE_URL", f"postgresql://postgres@127.0.0.1:5432/{name}")
    monkeypatch.setenv("APP_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    get_engine.cache_clear()
    yield
    dispose_engines()
    get_settings.cache_clear()
    get_engine.cache_clear()
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_postgresql_up_down_up(postgres: None) -> None:
    _up_down_up()
