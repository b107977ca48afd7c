"""0022 gives each regrade its course and offering: from the `jobs` row that ran it, else the
first course with no offering (from before: it counts in that course's first offering); up, down
and up again on SQLite and PostgreSQL, the replaced reports keeping their regrade."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head
from tests.migration_drill import rows, write

BEFORE = "0021_jobs"
NEW = {"course_slug", "offering_id"}


def _columns() -> set[str]:
    return {c["name"] for c in inspect(get_engine()).get_columns("regrade_jobs")}


def _populate() -> int:
    """Two regrades of 0021's time (one queued as a `jobs` row of a second offering, one from
    before jobs) and a report the older one replaced; the second offering's id."""
    write(
        "INSERT INTO offerings (course_slug, title, created_at) "
        "VALUES ('positional-embeddings', 'Spring', CURRENT_TIMESTAMP)"
    )
    [(spring,)] = rows("SELECT MAX(id) FROM offerings")
    write(
        "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
        "VALUES (1, 'a@b.c', 'A', 'x', 'student', CURRENT_TIMESTAMP, :no)",
        no=False,
    )
    write(
        "INSERT INTO submissions (id, user_id, exercise_slug, framework, mode, code, status, "
        "attempts, created_at, course_slug, purpose, late) VALUES (1, 1, 'e', 'numpy', 'submit', "
        "'', 'done', 0, CURRENT_TIMESTAMP, 'positional-embeddings', 'practice', :no)",
        no=False,
    )
    for regrade in (1, 2):
        write(
            "INSERT INTO regrade_jobs (id, exercise_slug, status, total, done, changed, failed, "
            "errors, created_at) VALUES (:id, 'e', 'done', 1, 1, 0, 0, '[]', CURRENT_TIMESTAMP)",
            id=regrade,
        )
    write(
        "INSERT INTO jobs (kind, payload, state, subject, course_slug, offering_id, attempts, "
        "error, created_at) VALUES ('regrade', '{}', 'done', 'regrade:2', "
        "'attention-step-by-step', :o, 1, '', CURRENT_TIMESTAMP)",
        o=spring,
    )
    write(
        "INSERT INTO submission_reports (submission_id, regrade_job_id, replaced_at) "
        "VALUES (1, 1, CURRENT_TIMESTAMP)"
    )
    return int(spring)


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    assert not NEW & _columns()
    spring = _populate()
    upgrade_head()
    assert _columns() >= NEW
    assert rows("SELECT id, course_slug, offering_id FROM regrade_jobs ORDER BY id") == [
        (1, "positional-embeddings", None),
        (2, "attention-step-by-step", spring),
    ]
    assert rows("SELECT regrade_job_id FROM submission_reports") == [(1,)]
    command.downgrade(alembic_config(), BEFORE)
    assert not NEW & _columns()
    assert rows("SELECT COUNT(*) FROM regrade_jobs") == [(2,)]
    assert rows("SELECT regrade_job_id FROM submission_reports") == [(1,)]
    upgrade_head()
    assert _columns() >= NEW


def test_sqlite(data_dir: Path) -> None:
    _check()


def test_postgresql(migrated_postgres: str) -> None:
    _check()
