"""0024 gives each opened hint and each draft its course: rows from before are the first
course's, two courses then keep their own rows of one exercise slug, and the way down keeps the
first course's; up, down and up again on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import inspect

from app.db import get_engine
from app.migrate import alembic_config, upgrade_head
from tests.migration_drill import refused, rows, write

BEFORE = "0023_lms_unlinked_from"
FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
HINT = "INSERT INTO hint_reveals (user_id, exercise_slug, hint_number, created_at{c}) VALUES "
HINT += "(1, 'e', :n, CURRENT_TIMESTAMP{v})"
DRAFT = "INSERT INTO drafts (user_id, exercise_slug, framework, code, updated_at{c}) VALUES "
DRAFT += "(1, 'e', 'numpy', :code, CURRENT_TIMESTAMP{v})"


def _has_course() -> list[bool]:
    found = inspect(get_engine())
    return [
        "course_slug" in {c["name"] for c in found.get_columns(table)}
        for table in ("hint_reveals", "drafts")
    ]


def _old(sql: str) -> str:
    return sql.format(c="", v="")


def _new(sql: str) -> str:
    return sql.format(c=", course_slug", v=", :course")


def _check() -> None:
    command.downgrade(alembic_config(), BEFORE)
    assert _has_course() == [False, False]
    write(
        "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
        "VALUES (1, 'a@b.c', 'A', 'x', 'student', CURRENT_TIMESTAMP, :no)",
        no=False,
    )
    for number in (1, 2):
        write(_old(HINT), n=number)
    write(_old(DRAFT), code="mine")
    upgrade_head()
    assert _has_course() == [True, True]
    assert rows("SELECT course_slug, hint_number FROM hint_reveals ORDER BY hint_number") == [
        (FIRST, 1),
        (FIRST, 2),
    ]
    assert rows("SELECT course_slug, code FROM drafts") == [(FIRST, "mine")]
    # The other course's exercise of the same slug has its own; each course still has one.
    write(_new(HINT), n=1, course=SECOND)
    write("DELETE FROM drafts")
    write(_new(DRAFT), code="theirs", course=SECOND)
    write(_new(DRAFT), code="mine", course=FIRST)  # the newer row: the way down keeps it
    assert refused(_new(HINT), n=1, course=SECOND)
    assert refused(_new(DRAFT), code="again", course=FIRST)
    assert refused(_old(HINT), n=3)  # a new row names its course
    assert refused(_old(DRAFT), code="nameless")
    command.downgrade(alembic_config(), BEFORE)
    assert _has_course() == [False, False]
    assert rows("SELECT hint_number FROM hint_reveals ORDER BY hint_number") == [(1,), (2,)]
    assert rows("SELECT code FROM drafts") == [("mine",)]  # the first course's is kept
    assert refused(_old(HINT), n=1)
    upgrade_head()
    assert _has_course() == [True, True]
    assert rows("SELECT course_slug, code FROM drafts") == [(FIRST, "mine")]


def test_sqlite(data_dir: Path) -> None:
    _check()


def test_postgresql(migrated_postgres: str) -> None:
    _check()
