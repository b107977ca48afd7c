"""What the tests of one migration share: raw SQL in and out of the database the app points at
(rows written as an older schema had them, read back after the way up or down)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from app.db import get_engine


def write(sql: str, **values: Any) -> None:
    """Run one statement in a transaction of its own."""
    with get_engine().begin() as db:
        db.execute(text(sql), values)


def rows(sql: str) -> list[tuple[Any, ...]]:
    """The rows one query returns, as tuples."""
    with get_engine().connect() as db:
        return [tuple(row) for row in db.execute(text(sql)).all()]


def refused(sql: str, **values: Any) -> bool:
    """Whether the database refuses the statement (a unique key, NOT NULL, a foreign key)."""
    try:
        write(sql, **values)
    except IntegrityError:
        return True
    return False
