"""0008 moves today's data into the first offering: nothing lost, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import text

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head

BEFORE = "0006_lti_ags_scopes"
USERS = [
    # id, email, role, role_source
    (1, "ada@example.org", "student", None),
    (2, "bob@example.org", "student", None),
    (3, "teacher@example.org", "instructor", None),
    (4, "lms-teacher@lti.invalid", "instructor", "lti"),
]
COUNTS = (
    "users",
    "submissions",
    "quiz_attempts",
    "deadline_extensions",
    "score_overrides",
    "problem_reports",
    "lti_contexts",
    "lti_links",
)


def _populate() -> None:
    """Today's kind of data, written at the revision before offerings."""
    with get_engine().begin() as db:
        for user_id, email, role, source in USERS:
            db.execute(
                text(
                    "INSERT INTO users (id, email, name, password_hash, role, role_source, "
                    "created_at) VALUES (:id, :email, '', 'x', :role, :source, CURRENT_TIMESTAMP)"
                ),
                {"id": user_id, "email": email, "role": role, "source": source},
            )
        for sub_id, user_id, score, override in (
            (1, 1, 0.5, None),
            (2, 1, 1.0, 0.9),
            (3, 2, 0.25, None),
        ):
            db.execute(
                text(
                    "INSERT INTO submissions (id, user_id, exercise_slug, framework, mode, code, "
                    "status, score, override_score, attempts, late, created_at) VALUES (:id, :u, "
                    "'sinusoidal-positional-encoding', 'numpy', 'submit', 'x', 'done', :s, :o, 1, "
                    ":late, CURRENT_TIMESTAMP)"
                ),
                {"id": sub_id, "u": user_id, "s": score, "o": override, "late": False},
            )
        db.execute(
            text(
                "INSERT INTO score_overrides (submission_id, instructor_id, score, reason, "
                "created_at) VALUES (2, 3, 0.9, 'late penalty', CURRENT_TIMESTAMP)"
            )
        )
        for user_id, score in ((1, 0.75), (2, 1.0)):
            db.execute(
                text(
                    "INSERT INTO quiz_attempts (user_id, lesson_slug, answers, results, score, "
                    "created_at) VALUES (:u, 'why-position', '{}', '{}', :s, CURRENT_TIMESTAMP)"
                ),
                {"u": user_id, "s": score},
            )
        db.execute(
            text(
                "INSERT INTO deadline_extensions (user_id, kind, slug, due_at, reason, granted_by, "
                "created_at) VALUES (2, 'exercise', 'sinusoidal-positional-encoding', "
                "CURRENT_TIMESTAMP, 'ill', 3, CURRENT_TIMESTAMP)"
            )
        )
        db.execute(
            text(
                "INSERT INTO problem_reports (user_id, kind, slug, submission_id, message, "
                "created_at) VALUES (1, 'exercise', 'sinusoidal-positional-encoding', 1, "
                "'the example is wrong', CURRENT_TIMESTAMP)"
            )
        )
        db.execute(
            text(
                "INSERT INTO lti_platforms (id, issuer, client_id, auth_url, token_url, jwks_url, "
                "created_at) VALUES (1, 'https://lms.example', 'c', 'a', 't', 'j', "
                "CURRENT_TIMESTAMP)"
            )
        )
        db.execute(
            text(
                "INSERT INTO lti_contexts (id, platform_id, deployment_id, context_id, title, "
                "score_policy, created_at) VALUES (1, 1, 'd', 'course-1', 'ML 101', 'best', "
                "CURRENT_TIMESTAMP)"
            )
        )
        db.execute(
            text(
                "INSERT INTO lti_links (context_id, kind, slug) "
                "VALUES (1, 'exercise', 'sinusoidal-positional-encoding')"
            )
        )


def _snapshot() -> dict[str, Any]:
    """Counts of every table that matters and the scores students hold."""
    with get_engine().connect() as db:
        counts = {t: db.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in COUNTS}
        scores = db.execute(
            text("SELECT id, user_id, score, override_score FROM submissions ORDER BY id")
        ).all()
        quiz = db.execute(text("SELECT user_id, score FROM quiz_attempts ORDER BY id")).all()
    return {
        "counts": counts,
        "scores": [tuple(r) for r in scores],
        "quiz": [tuple(r) for r in quiz],
    }


def _check_migration() -> dict[str, Any]:
    command.downgrade(alembic_config(), BEFORE)
    _populate()
    before = _snapshot()
    upgrade_head()
    after = _snapshot()
    assert after == before
    with get_engine().connect() as db:
        offerings = db.execute(text("SELECT id, course_slug FROM offerings")).all()
        assert len(offerings) == 1 and offerings[0][1] == "positional-embeddings"
        first = offerings[0][0]
        enrolled = db.execute(
            text("SELECT user_id, role, source FROM enrollments WHERE offering_id = :o"),
            {"o": first},
        ).all()
        admins = db.execute(text("SELECT id FROM users WHERE is_admin ORDER BY id")).scalars()
        unscoped = {
            table: db.execute(
                text(
                    f"SELECT COUNT(*) FROM {table} WHERE offering_id IS NULL OR offering_id <> :o"
                ),
                {"o": first},
            ).scalar_one()
            for table in (
                "submissions",
                "quiz_attempts",
                "deadline_extensions",
                "problem_reports",
                "lti_contexts",
            )
        }
        admin_ids = list(admins)
    assert sorted(tuple(r) for r in enrolled) == [
        (1, "student", "migration"),
        (2, "student", "migration"),
        (3, "instructor", "migration"),
        (4, "instructor", "lti"),
    ]
    assert admin_ids == [3]  # the local instructor; never one an LMS made
    assert set(unscoped.values()) == {0}
    return after


EXPECTED = {
    "users": 4,
    "submissions": 3,
    "quiz_attempts": 2,
    "deadline_extensions": 1,
    "score_overrides": 1,
    "problem_reports": 1,
    "lti_contexts": 1,
    "lti_links": 1,
}


def test_sqlite_migration_keeps_every_row_and_score(data_dir: Path) -> None:
    after = _check_migration()
    assert after["counts"] == EXPECTED
    assert [s[2] for s in after["scores"]] == [0.5, 1.0, 0.25]


def test_postgresql_migration_keeps_every_row_and_score(postgres_db: str) -> None:
    upgrade_head()
    after = _check_migration()
    assert after["counts"] == EXPECTED
    assert [s[2] for s in after["scores"]] == [0.5, 1.0, 0.25]


def test_downgrade_after_the_move_keeps_every_row(data_dir: Path) -> None:
    after = _check_migration()
    command.downgrade(alembic_config(), BEFORE)
    assert _snapshot() == after
