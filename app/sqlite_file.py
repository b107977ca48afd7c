"""The SQLite file's connection settings, and this process's one writer lock for it.

Why apart from app/db.py: these are SQLite's alone (the one-machine default); the engine wires
them for an SQLite URL only, and a page on the event loop asks whether the lock is held.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from sqlalchemy import Engine, event


def sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Each new connection: write-ahead log, foreign keys, and a wait for a busy writer."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: no fsync per commit, still safe
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


_WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)
_WRITER_KEY = "holds_sqlite_writer"


class _SqliteWriter:
    """Lets one connection of this process write to SQLite at a time, and wakes the next at once.

    Why: SQLite lets one connection write; the others wait in its busy handler, which sleeps in
    growing steps (1, 2, 5 ... 100 ms) instead of waking when the lock frees, so a class opening
    lessons at once (each first visit is a write) turned into stalls of up to 0.8 s. Waiting here
    instead costs nothing when nobody writes; other processes still meet the busy handler.
    """

    def __init__(self, wait_seconds: float) -> None:
        self._lock = threading.Lock()
        self._wait = wait_seconds

    def before_execute(self, conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        """Take the lock before this connection's first write of its transaction."""
        if conn.info.get(_WRITER_KEY) or not _WRITE.match(statement):
            return
        # On time-out, go on without it: SQLite's own busy handling decides, as before.
        if self._lock.acquire(timeout=self._wait):
            conn.info[_WRITER_KEY] = True

    def busy(self) -> bool:
        """Whether a connection holds the lock now."""
        return self._lock.locked()

    def after_end(self, _dbapi_connection: Any, record: Any, *_args: Any) -> None:
        """Hand the lock on once the transaction ended and the connection went back."""
        if record.info.pop(_WRITER_KEY, False):
            self._lock.release()


_sqlite_writer = _SqliteWriter(wait_seconds=5.0)  # as long as busy_timeout above


def sqlite_writer_busy() -> bool:
    """Whether a connection of this process holds SQLite's writer lock right now."""
    return _sqlite_writer.busy()


def watch_sqlite_writes(engine: Engine) -> None:
    """Route every write of the engine through the process's one SQLite writer lock."""
    event.listen(engine, "before_cursor_execute", _sqlite_writer.before_execute)
    event.listen(engine.pool, "checkin", _sqlite_writer.after_end)
    event.listen(engine.pool, "invalidate", _sqlite_writer.after_end)
