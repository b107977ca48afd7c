"""Fixtures of the offerings tests: a throwaway PostgreSQL database next to the SQLite one."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.config import get_settings
from app.db import dispose_engines, get_engine

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture
def postgres_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """An empty database on the machine's PostgreSQL; fails rather than skips in CI."""
    name = f"test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI: {exc}")
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql://postgres@127.0.0.1:5432/{name}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("APP_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    get_engine.cache_clear()
    yield url
    dispose_engines()
    get_settings.cache_clear()
    get_engine.cache_clear()
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# The small scaffolded course and its app client, shared with the instructor tests.
from tests.instructor.conftest import app_client, course_dir  # noqa: E402

__all__ = ["app_client", "course_dir", "postgres_db"]
from tests.lti.conftest import lti_client, platform  # noqa: E402

__all__ += ["lti_client", "platform"]
