"""0022 gives each regrade its course and offering: from the `jobs` row that ran it, else the
first course with no offering (from before: it counts in that course's first offering); up, down
and up again on SQLite and PostgreSQL, the replaced reports keeping their regrade."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import inspect, text

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head
from tests.postgres import throwaway_database

BEFORE = "0021_jobs"
NEW = {"course_slug", "offering_id"}


def _write(sql: str, **values: Any) -> None:
    with get_engine().begin() as db:
        db.execute(text(sql), values)


def _rows(sql: str) -> list[tuple[Any, ...]]:
    with get_engine().connect() as db:
        return [tuple(row) for row in db.execute(text(sql)).all()]


def _columns() -> set[str]:
    return {c["name"] for c in inspect(get_engine()).get_columns("regrade_jobs")}


def _populate() -> int:
    """Two regrades of 0021's time (one queued as a `jobs` row of a second offering, one from
    before jobs) and a report the older one replaced; the second offering's id."""
    _write(
        "INSERT INTO offerings (course_slug, title, created_at) "
        "VALUES ('positional-embeddings', 'Spring', CURRENT_TIMESTAMP)"
    )
    [(spring,)] = _rows("SELECT MAX(id) FROM offerings")
    _write(
        "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
        "VALUES (1, 'a@b.c', 'A', 'x', 'student', CURRENT_TIMESTAMP, :no)",
        no=False,
    )
    _write(
        "INSERT INTO submissions (id, user_id, exercise_slug, framework, mode, code, status, "
        "attempts, created_at, course_slug, purpose, late) VALUES (1, 1, 'e', 'numpy', 'submit', "
        "'', 'done', 0, CURRENT_TIMESTAMP, 'positional-embeddings', 'practice', :no)",
        no=False,
    )
    for regrade in (1, 2):
        _write(
            "INSERT INTO regrade_jobs (id, exercise_slug, status, total, done, changed, failed, "
            "errors, created_at) VALUES (:id, 'e', 'done', 1, 1, 0, 0, '[]', CURRENT_TIMESTAMP)",
            id=regrade,
        )
    _write(
        "INSERT INTO jobs (kind, payload, state, subject, course_slug, offering_id, attempts, "
        "error, created_at) VALUES ('regrade', '{}', 'done', 'regrade:2', "
        "'attention-step-by-step', :o, 1, '', CURRENT_TIMESTAMP)",
        o=spring,
    )
    _write(
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
    assert _rows("SELECT id, course_slug, offering_id FROM regrade_jobs ORDER BY id") == [
        (1, "positional-embeddings", None),
        (2, "attention-step-by-step", spring),
    ]
    assert _rows("SELECT regrade_job_id FROM submission_reports") == [(1,)]
    command.downgrade(alembic_config(), BEFORE)
    assert not NEW & _columns()
    assert _rows("SELECT COUNT(*) FROM regrade_jobs") == [(2,)]
    assert _rows("SELECT regrade_job_id FROM submission_reports") == [(1,)]
    upgrade_head()
    assert _columns() >= NEW


def test_sqlite(data_dir: Path) -> None:
    _check()


@pytest.fixture
def postgres(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A throwaway PostgreSQL database; fails rather than skips in CI."""
    with throwaway_database(monkeypatch, tmp_path):
        upgrade_head()
        yield


def test_postgresql(postgres: None) -> None:
    _check()
