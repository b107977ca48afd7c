"""The models and the migrations describe one schema: a database migrated to head has every
table, column, type, nullability, index, unique key and foreign key the models declare, and no
other (Alembic's autogenerate comparison), on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.db import get_engine
from app.models import Base


def _differences() -> list[object]:
    with get_engine().connect() as db:
        context = MigrationContext.configure(db, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def test_sqlite(data_dir: Path) -> None:
    assert _differences() == []


def test_postgresql(migrated_postgres: str) -> None:
    assert _differences() == []
