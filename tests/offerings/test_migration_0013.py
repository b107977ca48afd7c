"""0013_accounts_password_links: enrolments say whether their roster created the account; up
and down on SQLite and PostgreSQL, with the rows written before kept."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head

BEFORE = "0012_lms_unlink"


def _columns() -> set[str]:
    return {c["name"] for c in inspect(get_engine()).get_columns("enrollments")}


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    assert "created_account" not in _columns()
    with get_engine().begin() as db:
        db.execute(
            text(
                "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
                "VALUES (41, 'ada@example.org', '', 'x', 'student', CURRENT_TIMESTAMP, :no)"
            ),
            {"no": False},
        )
        first = db.execute(text("SELECT MIN(id) FROM offerings")).scalar_one()
        db.execute(
            text(
                "INSERT INTO enrollments (offering_id, user_id, role, source, created_at) "
                "VALUES (:o, 41, 'student', 'roster', CURRENT_TIMESTAMP)"
            ),
            {"o": first},
        )
    upgrade_head()
    assert "created_account" in _columns()
    with get_engine().begin() as db:
        rows = db.execute(text("SELECT user_id, source, created_account FROM enrollments")).all()
        assert [(r[0], r[1], bool(r[2])) for r in rows] == [(41, "roster", False)]
        db.execute(text("UPDATE enrollments SET created_account = :yes"), {"yes": True})
    command.downgrade(alembic_config(), BEFORE)
    assert "created_account" not in _columns()
    with get_engine().connect() as db:
        kept = db.execute(text("SELECT user_id, source FROM enrollments")).all()
    assert [tuple(r) for r in kept] == [(41, "roster")]
    upgrade_head()


def test_sqlite_upgrade_and_downgrade(data_dir: Path) -> None:
    _check()


def test_postgresql_upgrade_and_downgrade(postgres_db: str) -> None:
    upgrade_head()
    _check()
