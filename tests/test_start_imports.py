"""What a start loads: the default deployment (SQLite, no Redis) imports no PostgreSQL driver
and no Redis client, and `serve` no alembic and no JWT or RSA library (the LMS's).

Why: a restart's first verdicts wait on the web app's import (issue 54). Importing psycopg cost
about 80 ms of every start and command, redis and dramatiq about 100 ms, alembic about 200 ms of
`serve`'s check of the schema, PyJWT and cryptography about 45 ms (loaded by the first LMS
launch, ticket or signed grade). A deployment on PostgreSQL or Redis loads them when its engine or
queue is made, and its outages still answer 503 (tests/web/test_outage_kinds.py,
tests/web/test_outages.py); `migrate`, and a check that finds the schema not at the newest
revision, still go through alembic (tests/test_migrations.py).
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
from fastapi.testclient import TestClient
from app.main import create_app
with TestClient(create_app()) as client:
    assert client.get("/healthz").status_code == 200
later = ("psycopg", "alembic", "redis", "dramatiq", "jwt", "cryptography")
print(json.dumps([m for m in later if m in sys.modules]))
"""


def test_the_app_on_sqlite_loads_no_postgresql_driver(data_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["APP_DATA_DIR"] = str(data_dir)
    assert last_json(_LOADED, env=env, cwd=data_dir) == []


def test_serve_on_sqlite_checks_its_schema_and_starts_without_alembic_or_redis(
    data_dir: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(APP_DATA_DIR=str(data_dir), POOL_WARM_ON_START="false")
    assert last_json(_SERVE, env=env, cwd=data_dir) == []
