"""0014_assessments_per_offering: attempts are numbered per offering and accommodations belong
to one; up and down on SQLite and PostgreSQL, with the rows written before kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head

BEFORE = "0013_accounts_password_links"
ACCOMMODATION = (
    "INSERT INTO assessment_accommodations (user_id, course_slug, offering_id, "
    "assessment_slug, extra_minutes, reason, created_at) VALUES (41, 'positional-embeddings', "
    ":o, 'quick', :extra, '', CURRENT_TIMESTAMP)"
)
ATTEMPT = (
    "INSERT INTO assessment_attempts (user_id, course_slug, offering_id, assessment_slug, "
    "number, seed, items, rules, started_at, deadline, status) VALUES (41, "
    "'positional-embeddings', :o, 'quick', :n, 7, '[]', '{}', CURRENT_TIMESTAMP, "
    "CURRENT_TIMESTAMP, 'submitted')"
)


def _write(sql: str, **values: Any) -> None:
    with get_engine().begin() as db:
        db.execute(text(sql), values)


def _rows(sql: str) -> list[tuple[Any, ...]]:
    with get_engine().connect() as db:
        return [tuple(row) for row in db.execute(text(sql)).all()]


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    _write(
        "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
        "VALUES (41, 'ada@example.org', '', 'x', 'student', CURRENT_TIMESTAMP, :no)",
        no=False,
    )
    [(first,)] = _rows("SELECT MIN(id) FROM offerings")
    _write(
        "INSERT INTO offerings (course_slug, title, created_at) "
        "VALUES ('positional-embeddings', 'Spring 2027', CURRENT_TIMESTAMP)"
    )
    [(second,)] = _rows("SELECT MAX(id) FROM offerings")
    _write(ACCOMMODATION, o=None, extra=15.0)  # written before accommodations had an offering
    _write(ATTEMPT, o=first, n=1)
    _write(ATTEMPT, o=second, n=2)  # numbered across offerings, as before

    upgrade_head()
    assert _rows("SELECT offering_id, extra_minutes FROM assessment_accommodations") == [
        (first, 15.0)
    ]
    _write(ACCOMMODATION, o=second, extra=5.0)  # the second offering's own
    with pytest.raises(IntegrityError):
        _write(ACCOMMODATION, o=second, extra=10.0)
    _write(ATTEMPT, o=second, n=1)  # free in the second offering
    with pytest.raises(IntegrityError):
        _write(ATTEMPT, o=first, n=1)

    command.downgrade(alembic_config(), BEFORE)
    kept = "SELECT offering_id, extra_minutes FROM assessment_accommodations"
    assert _rows(kept) == [(first, 15.0)]  # one per student and assessment: the first offering's
    numbers = "SELECT offering_id, number FROM assessment_attempts ORDER BY id"
    assert _rows(numbers) == [(first, 1), (second, 2), (second, 3)]
    upgrade_head()
    assert _rows(numbers) == [(first, 1), (second, 2), (second, 3)]


def test_sqlite_upgrade_and_downgrade(data_dir: Path) -> None:
    _check()


def test_postgresql_upgrade_and_downgrade(postgres_db: str) -> None:
    upgrade_head()
    _check()
