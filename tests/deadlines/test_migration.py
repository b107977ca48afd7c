"""0010: extensions move into the first offering and can differ per offering; up and down on
SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head

BEFORE = "0009_assessments"
EXTENSION = (
    "INSERT INTO deadline_extensions (user_id, kind, slug, due_at, reason, offering_id, "
    "created_at) VALUES (1, 'exercise', 'ex', CURRENT_TIMESTAMP, '', {}, CURRENT_TIMESTAMP)"
)


def _populate() -> int:
    """A student and an extension written before 0010, without an offering; the first id."""
    with get_engine().begin() as db:
        db.execute(
            text(
                "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
                "VALUES (1, 'ada@example.org', '', 'x', 'student', CURRENT_TIMESTAMP, :no)"
            ),
            {"no": False},
        )
        first = db.execute(
            text("SELECT MIN(id) FROM offerings WHERE course_slug = 'positional-embeddings'")
        ).scalar_one()
        db.execute(text(EXTENSION.format("NULL")))
        return int(first)


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    first = _populate()
    upgrade_head()
    engine = get_engine()
    assert {"offering_dues", "late_policies"} <= set(inspect(engine).get_table_names())
    with engine.begin() as db:
        rows = db.execute(text("SELECT offering_id FROM deadline_extensions")).scalars().all()
        assert rows == [first]  # the old row now names the first offering
        second = db.execute(
            text(
                "INSERT INTO offerings (course_slug, title, created_at) "
                "VALUES ('positional-embeddings', 'B', CURRENT_TIMESTAMP) RETURNING id"
            )
        ).scalar_one()
        db.execute(text(EXTENSION.format(second)))  # the same item in another offering
    with pytest.raises(IntegrityError), engine.begin() as db:
        db.execute(text(EXTENSION.format(first)))  # twice in one offering: refused
    command.downgrade(alembic_config(), BEFORE)
    with engine.connect() as db:
        kept = db.execute(text("SELECT offering_id FROM deadline_extensions")).scalars().all()
    assert kept == [first]  # the later offering's duplicate goes; the first's stays
    assert "late_policies" not in inspect(engine).get_table_names()
    upgrade_head()


def test_sqlite_upgrade_and_downgrade(data_dir: Path) -> None:
    _check()


def test_postgresql_upgrade_and_downgrade(postgres_db: str) -> None:
    upgrade_head()
    _check()
