"""What a start loads: the default deployment (SQLite) imports no PostgreSQL driver, and
`serve` no alembic.

Why: a restart's first verdicts wait on the web app's import (issue 54). Importing psycopg cost
about 80 ms of every start and command, alembic about 200 ms of `serve`'s check of the schema.
A deployment on PostgreSQL loads psycopg when its engine is made, and its outages still answer
503 (tests/web/test_outage_kinds.py, tests/web/test_outages.py); `migrate`, and a check that
finds the schema not at the newest revision, still go through alembic (tests/test_migrations.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.pyrun import last_json

_LOADED = """
import json, sys
import app.main
later = ("psycopg",)
print(json.dumps([m for m in later if m in sys.modules]))
"""

_SERVE = """
import json, sys
from app.migrate import schema_problem, wait_for_database
assert wait_for_database() is None and schema_problem() is None
from app.cli import _wire
_wire()
from app.main import create_app
create_app()
later = ("psycopg", "alembic")
print(json.dumps([m for m in later if m in sys.modules]))
"""


def test_the_app_on_sqlite_loads_no_postgresql_driver(data_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["APP_DATA_DIR"] = str(data_dir)
    assert last_json(_LOADED, env=env, cwd=data_dir) == []


def test_serve_on_sqlite_checks_its_schema_and_builds_the_app_without_alembic(
    data_dir: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["APP_DATA_DIR"] = str(data_dir)
    assert last_json(_SERVE, env=env, cwd=data_dir) == []
