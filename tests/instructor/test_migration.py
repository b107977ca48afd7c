"""Migration 0002 (instructor tools) goes up and down on SQLite and on the real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from app.db import get_engine
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


def test_postgresql_up_down_up(postgres_db: str) -> None:
    _up_down_up()
