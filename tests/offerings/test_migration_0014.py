"""0014_assessments_per_offering: attempts are numbered per offering and accommodations belong
to one; up and down on SQLite and PostgreSQL, with the rows written before kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from sqlalchemy.exc import IntegrityError

from app.migrate import alembic_config, upgrade_head
from tests.migration_drill import rows, write

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


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    write(
        "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
        "VALUES (41, 'ada@example.org', '', 'x', 'student', CURRENT_TIMESTAMP, :no)",
        no=False,
    )
    [(first,)] = rows("SELECT MIN(id) FROM offerings")
    write(
        "INSERT INTO offerings (course_slug, title, created_at) "
        "VALUES ('positional-embeddings', 'Spring 2027', CURRENT_TIMESTAMP)"
    )
    [(second,)] = rows("SELECT MAX(id) FROM offerings")
    write(ACCOMMODATION, o=None, extra=15.0)  # written before accommodations had an offering
    write(ATTEMPT, o=first, n=1)
    write(ATTEMPT, o=second, n=2)  # numbered across offerings, as before

    upgrade_head()
    assert rows("SELECT offering_id, extra_minutes FROM assessment_accommodations") == [
        (first, 15.0)
    ]
    write(ACCOMMODATION, o=second, extra=5.0)  # the second offering's own
    with pytest.raises(IntegrityError):
        write(ACCOMMODATION, o=second, extra=10.0)
    write(ATTEMPT, o=second, n=1)  # free in the second offering
    with pytest.raises(IntegrityError):
        write(ATTEMPT, o=first, n=1)

    command.downgrade(alembic_config(), BEFORE)
    kept = "SELECT offering_id, extra_minutes FROM assessment_accommodations"
    assert rows(kept) == [(first, 15.0)]  # one per student and assessment: the first offering's
    numbers = "SELECT offering_id, number FROM assessment_attempts ORDER BY id"
    assert rows(numbers) == [(first, 1), (second, 2), (second, 3)]
    upgrade_head()
    assert rows(numbers) == [(first, 1), (second, 2), (second, 3)]


def test_sqlite_upgrade_and_downgrade(data_dir: Path) -> None:
    _check()


def test_postgresql_upgrade_and_downgrade(postgres_db: str) -> None:
    upgrade_head()
    _check()
