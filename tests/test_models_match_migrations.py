"""The models and the migrations describe one schema: a database migrated to head has every
table, column, type, nullability, index, unique key and foreign key the models declare, and no
other (Alembic's autogenerate comparison), on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.db import get_engine
from app.migrate import upgrade_head
from app.models import Base
from tests.postgres import throwaway_database


def _differences() -> list[object]:
    with get_engine().connect() as db:
        context = MigrationContext.configure(db, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def test_sqlite(data_dir: Path) -> None:
    assert _differences() == []


@pytest.fixture
def postgres(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A throwaway PostgreSQL database migrated to head; fails rather than skips in CI."""
    with throwaway_database(monkeypatch, tmp_path):
        upgrade_head()
        yield


def test_postgresql(postgres: None) -> None:
    assert _differences() == []
