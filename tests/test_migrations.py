"""Migrations run forwards and backwards on SQLite and on the real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from app.config import get_settings
from app.db import get_engine
from app.migrate import (
    NOT_SET_UP,
    alembic_config,
    is_up_to_date,
    newest_revision,
    schema_problem,
    upgrade_head,
)
from tests.postgres import throwaway_database

TABLES = {
    "users",
    "api_tokens",
    "web_sessions",
    "lesson_reads",
    "quiz_attempts",
    "submissions",
    "drafts",
    "lti_platforms",
    "lti_users",
    "lti_nonces",
    "lti_grade_posts",
    "alembic_version",
}
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def _round_trip() -> None:
    assert is_up_to_date()
    assert set(inspect(get_engine()).get_table_names()) >= TABLES
    command.downgrade(alembic_config(), "base")
    assert set(inspect(get_engine()).get_table_names()) <= {"alembic_version"}
    assert not is_up_to_date()
    upgrade_head()
    upgrade_head()
    assert is_up_to_date()


def test_sqlite_round_trip(data_dir: object) -> None:
    _round_trip()


def test_schema_problem_names_the_command_that_fixes_it(data_dir: object) -> None:
    assert schema_problem() is None
    command.downgrade(alembic_config(), "-1")
    assert schema_problem() == (
        "the database schema is older than this app: run `python -m app migrate`, then try again"
    )
    command.downgrade(alembic_config(), "base")
    assert schema_problem() == NOT_SET_UP
    with get_engine().begin() as conn:
        conn.execute(text("INSERT INTO alembic_version VALUES ('f00dcafe')"))
    assert "set up by a newer version of the app (revision f00dcafe)" in (schema_problem() or "")


def test_the_newest_revision_read_from_the_files_is_alembics_head() -> None:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None and newest_revision() == head


def test_schema_problem_says_when_the_database_cannot_be_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://postgres@127.0.0.1:9/nowhere")
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        problem = schema_problem() or ""
    finally:
        get_settings.cache_clear()
        get_engine.cache_clear()
    assert problem.startswith("cannot reach the database (") and "DATABASE_URL" in problem


@pytest.fixture
def postgres_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """A throwaway database on the machine's PostgreSQL; fails rather than skips in CI."""
    with throwaway_database(monkeypatch, tmp_path) as url:
        yield url


def test_postgresql_round_trip(postgres_url: str) -> None:
    upgrade_head()
    _round_trip()


def test_instructors_made_by_lti_are_marked_so_a_launch_can_demote_them(data_dir: object) -> None:
    """0005 marks LMS-made instructors (perhaps from the old role mapping), not local ones."""
    command.downgrade(alembic_config(), "0004_problems")
    with get_engine().begin() as db:
        for user_id, email in ((1, "lti@lti.invalid"), (2, "local@example.org")):
            db.execute(
                text(
                    "INSERT INTO users (id, email, name, password_hash, role, created_at) "
                    "VALUES (:id, :email, '', 'x', 'instructor', CURRENT_TIMESTAMP)"
                ),
                {"id": user_id, "email": email},
            )
        db.execute(
            text(
                "INSERT INTO lti_users (issuer, sub, user_id, created_at) "
                "VALUES ('https://lms.example', 'x', 1, CURRENT_TIMESTAMP)"
            )
        )
    upgrade_head()
    with get_engine().connect() as db:
        sources = dict(db.execute(text("SELECT email, role_source FROM users")).all())
    assert sources == {"lti@lti.invalid": "lti", "local@example.org": None}
