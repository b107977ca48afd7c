"""What a start loads: the default deployment (SQLite) imports no PostgreSQL driver.

Why: importing psycopg cost about 80 ms of every start and command (issue 54); a deployment on
PostgreSQL loads it when its engine is made, and its outages still answer 503
(tests/web/test_outage_kinds.py, tests/web/test_outages.py).
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


def test_the_app_on_sqlite_loads_no_postgresql_driver(data_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["APP_DATA_DIR"] = str(data_dir)
    assert last_json(_LOADED, env=env, cwd=data_dir) == []
