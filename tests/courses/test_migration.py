"""0007_courses: rows from before belong to the first course, with no content version."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect, text

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head


def test_existing_rows_get_the_first_course_and_downgrade_drops_the_columns(
    data_dir: Path,
) -> None:
    command.downgrade(alembic_config(), "0006_lti_ags_scopes")
    assert "course_slug" not in {
        c["name"] for c in inspect(get_engine()).get_columns("submissions")
    }
    with get_engine().begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (id, email, name, role, password_hash, created_at) "
                "VALUES (1, 'a@example.org', 'A', 'student', 'x', '2026-01-01')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO submissions (user_id, exercise_slug, framework, mode, code, status, "
                "attempts, created_at, late) VALUES (1, 'sinusoidal-positional-encoding', "
                "'numpy', 'submit', 'x', 'done', 1, '2026-01-01', 0)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO quiz_attempts (user_id, lesson_slug, answers, results, score, "
                "created_at) VALUES (1, 'why-position', '{}', '{}', 1.0, '2026-01-01')"
            )
        )
    upgrade_head()
    with get_engine().connect() as conn:
        for table in ("submissions", "quiz_attempts"):
            rows = conn.execute(text(f"SELECT course_slug, content_version FROM {table}")).all()
            assert rows == [("positional-embeddings", None)]
    assert "course_folders" in inspect(get_engine()).get_table_names()
    command.downgrade(alembic_config(), "0006_lti_ags_scopes")
    assert "course_folders" not in inspect(get_engine()).get_table_names()
    with get_engine().connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM submissions")).scalar() == 1
