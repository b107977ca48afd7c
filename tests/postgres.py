"""A throwaway PostgreSQL database for the tests that must run on it as well as on SQLite."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from app.config import get_settings
from app.db import dispose_engines, get_engine

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


@contextmanager
def throwaway_database(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[str]:
    """An empty database the app points at (DATABASE_URL), dropped after; fails rather than
    skips in CI, where PostgreSQL is part of the machine."""
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
    monkeypatch.setenv("APP_DATA_DIR", str(data_dir))
    get_settings.cache_clear()
    get_engine.cache_clear()
    try:
        yield url
    finally:
        dispose_engines()
        get_settings.cache_clear()
        get_engine.cache_clear()
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
