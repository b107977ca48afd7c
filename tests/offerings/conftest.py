"""Fixtures of the offerings tests: a throwaway PostgreSQL database next to the SQLite one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import throwaway_database

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture
def postgres_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """An empty database on the machine's PostgreSQL; fails rather than skips in CI."""
    with throwaway_database(monkeypatch, tmp_path) as url:
        yield url


# The small scaffolded course and its app client, shared with the instructor tests.
from tests.instructor.conftest import app_client, course_dir  # noqa: E402

__all__ = ["app_client", "course_dir", "postgres_db"]
from tests.lti.conftest import lti_client, platform  # noqa: E402

__all__ += ["lti_client", "platform"]
