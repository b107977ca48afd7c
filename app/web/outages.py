"""Failures that mean a dependency is away (database, queue, disk), not a bug: they answer 503.

Why one place: a database restart, a Redis restart or a full disk raise a dozen exception
classes from three libraries, wrapped or not by SQLAlchemy. Each of them is a moment to wait
out, never the student's fault and never a reason to show a bare 500.
"""

from __future__ import annotations

import errno
import sqlite3
import sys
from collections.abc import Iterator
from typing import Literal

import sqlalchemy.exc

Outage = Literal["database", "queue", "disk"]

DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
SQLITE_FULL = "database or disk is full"
PG_DISK_FULL = "53100"  # SQLSTATE disk_full

# Exception classes whose handler asks `outage_of`; an OSError that is not a full disk, or an
# unrelated error of these classes, still ends as the server error it is. psycopg's own errors
# reach the app wrapped by SQLAlchemy; one that is not is answered by the last-resort handler,
# which asks `outage_of` too (psycopg is not imported on SQLite, nor redis without a REDIS_URL:
# issue 54).
OUTAGE_CLASSES: tuple[type[Exception], ...] = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.DisconnectionError,
    sqlalchemy.exc.DBAPIError,
    sqlite3.OperationalError,
    OSError,
)


def outage_classes(*, redis_url: str | None) -> tuple[type[Exception], ...]:
    """OUTAGE_CLASSES, and Redis's connection errors for a deployment that has Redis."""
    if redis_url is None:
        return OUTAGE_CLASSES
    import redis.exceptions

    return (*OUTAGE_CLASSES, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


CAUSES: dict[Outage, str] = {
    "database": "The course's database is not answering right now.",
    "queue": "The grading queue is not answering right now.",
    "disk": "The server's disk is full right now.",
}
OUTAGE_DETAIL = (
    "{cause} Nothing already saved is lost; this request was not carried out. "
    "Try again in {retry} seconds."
)
OUTAGE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Back in a moment</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/style.css"></head>
<body><main class="error-page"><h1>Back in a moment</h1>
<p>{cause} Nothing already saved is lost. If you were sending something, it was not saved:
your browser still has it, so send it again in {retry} seconds.</p></main></body></html>
"""


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and those it wraps (SQLAlchemy keeps the driver's as `orig`)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        found = todo.pop()
        if found is None or id(found) in seen:
            continue
        seen.add(id(found))
        yield found
        orig = getattr(found, "orig", None)
        todo += [found.__cause__, found.__context__]
        if isinstance(orig, BaseException):
            todo.append(orig)


def _disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in DISK_ERRNOS:
        return True
    if isinstance(exc, sqlite3.OperationalError | sqlalchemy.exc.OperationalError):
        return SQLITE_FULL in str(exc)
    return getattr(exc, "sqlstate", None) == PG_DISK_FULL


def _database_away(exc: BaseException) -> bool:
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.connection_invalidated:
        return True
    away = (
        sqlalchemy.exc.OperationalError,
        sqlalchemy.exc.InterfaceError,
        sqlalchemy.exc.DisconnectionError,
        sqlite3.OperationalError,
    )
    return isinstance(exc, away + _psycopg_connection_errors())


def _redis_connection_errors() -> tuple[type[Exception], ...]:
    """Redis's connection errors once it is loaded: before that, none of its errors exists."""
    errors = sys.modules.get("redis.exceptions")
    return (errors.ConnectionError, errors.TimeoutError) if errors is not None else ()


def _psycopg_connection_errors() -> tuple[type[Exception], ...]:
    """psycopg's connection errors once it is loaded: before that, none of its errors exists."""
    psycopg = sys.modules.get("psycopg")
    return (psycopg.OperationalError, psycopg.InterfaceError) if psycopg is not None else ()


def outage_of(exc: BaseException) -> Outage | None:
    """Which dependency this error says is away, or None for an ordinary failure."""
    chain = list(_chain(exc))
    if any(_disk_full(e) for e in chain):
        return "disk"
    if any(_database_away(e) for e in chain):
        return "database"
    queue_errors = _redis_connection_errors()
    if queue_errors and any(isinstance(e, queue_errors) for e in chain):
        return "queue"
    return None
