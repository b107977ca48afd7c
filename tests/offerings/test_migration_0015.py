"""0015_offering_roles: today's global instructors become instructors where they teach, the
first offering opens, roster-made accounts wait for their own password; up and down on SQLite
and PostgreSQL, on a populated database."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command

from app.migrate import alembic_config, upgrade_head
from tests.migration_drill import rows, write

BEFORE = "0014_assessments_per_offering"
USER = (
    "INSERT INTO users (id, email, name, password_hash, role, created_at, is_admin) "
    "VALUES (:id, :email, '', 'x', :role, CURRENT_TIMESTAMP, :no)"
)
ENROL = (
    "INSERT INTO enrollments (offering_id, user_id, role, source, created_account, created_at) "
    "VALUES (:o, :u, :role, 'admin', :made, CURRENT_TIMESTAMP)"
)


def _populate() -> tuple[int, int]:
    [(first,)] = rows("SELECT MIN(id) FROM offerings")
    write(
        "INSERT INTO offerings (course_slug, title, created_at) "
        "VALUES ('positional-embeddings', 'Section B', CURRENT_TIMESTAMP)"
    )
    [(second,)] = rows("SELECT MAX(id) FROM offerings")
    people = {
        51: ("promoted@example.org", "instructor"),  # a student place in the first offering
        52: ("enrolled@example.org", "instructor"),  # no place anywhere
        53: ("teaches-b@example.org", "instructor"),  # instructor of B, student of the first
        54: ("roster@example.org", "student"),  # made by a roster upload
        55: ("own@example.org", "student"),  # signed up
    }
    for uid, (email, role) in people.items():
        write(USER, id=uid, email=email, role=role, no=False)
    for offering, uid, role, made in (
        (first, 51, "student", False),
        (second, 53, "instructor", False),
        (first, 53, "student", False),
        (second, 54, "student", True),
        (first, 55, "student", False),
    ):
        write(ENROL, o=offering, u=uid, role=role, made=made)
    return first, second


def _check(capsys: pytest.CaptureFixture[str]) -> None:
    command.downgrade(alembic_config(), BEFORE)
    first, second = _populate()
    capsys.readouterr()
    upgrade_head()
    printed = capsys.readouterr().out
    assert (
        "0015_offering_roles: 3 global instructors; 1 kept their staff roles; 1 promoted from "
        "student in the first offering; 1 enrolled as its instructors; first offering open: True"
    ) in printed
    roles = "SELECT offering_id, user_id, role FROM enrollments WHERE user_id > 50 ORDER BY 1, 2"
    want = sorted(
        [
            (first, 51, "instructor"),
            (first, 52, "instructor"),
            (first, 53, "student"),
            (first, 55, "student"),
            (second, 53, "instructor"),
            (second, 54, "student"),
        ]
    )
    assert rows(roles) == want
    opened = "SELECT id, is_open FROM offerings ORDER BY id"
    assert [(i, bool(o)) for i, o in rows(opened)] == [(first, True), (second, False)]
    chosen = "SELECT id, password_set FROM users WHERE id > 50 ORDER BY id"
    assert [(i, bool(p)) for i, p in rows(chosen)] == [
        (51, True),
        (52, True),
        (53, True),
        (54, False),
        (55, True),
    ]
    command.downgrade(alembic_config(), BEFORE)
    assert rows(roles) == want  # enrolments stay; the columns go
    upgrade_head()
    assert "3 global instructors; 3 kept their staff roles" in capsys.readouterr().out
    assert rows(roles) == want


def test_sqlite_upgrade_and_downgrade(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _check(capsys)


def test_postgresql_upgrade_and_downgrade(
    postgres_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade_head()
    _check(capsys)
