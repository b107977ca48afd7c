"""0012: an LMS course's removed link is kept (`unlinked_at`); up and down on SQLite and
PostgreSQL, with the LMS courses already there kept as they were."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head

BEFORE = "0011_gradebook_index"


def _columns() -> set[str]:
    return {c["name"] for c in inspect(get_engine()).get_columns("lti_contexts")}


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    assert "unlinked_at" not in _columns()
    with get_engine().begin() as db:
        first = db.execute(text("SELECT MIN(id) FROM offerings")).scalar_one()
        db.execute(
            text(
                "INSERT INTO lti_platforms (id, issuer, client_id, auth_url, token_url, jwks_url, "
                "created_at) VALUES (1, 'https://lms', 'c', 'https://a', 'https://t', "
                "'https://j', CURRENT_TIMESTAMP)"
            )
        )
        db.execute(
            text(
                "INSERT INTO lti_contexts (platform_id, deployment_id, context_id, title, "
                "score_policy, offering_id, created_at) VALUES (1, 'd', 'course-1', 'T', "
                "'best', :first, CURRENT_TIMESTAMP)"
            ),
            {"first": first},
        )
    upgrade_head()
    assert "unlinked_at" in _columns()
    with get_engine().begin() as db:
        row = db.execute(text("SELECT offering_id, unlinked_at FROM lti_contexts")).one()
        assert tuple(row) == (first, None)  # still linked, never unlinked
        db.execute(
            text("UPDATE lti_contexts SET offering_id = NULL, unlinked_at = :now"),
            {"now": "2026-11-24 17:00:00"},
        )
    command.downgrade(alembic_config(), BEFORE)
    assert "unlinked_at" not in _columns()
    with get_engine().connect() as db:
        assert db.execute(text("SELECT COUNT(*) FROM lti_contexts")).scalar_one() == 1
    upgrade_head()


def test_sqlite_upgrade_and_downgrade(data_dir: Path) -> None:
    _check()


def test_postgresql_upgrade_and_downgrade(postgres_db: str) -> None:
    upgrade_head()
    _check()
