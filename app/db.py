"""Database engine and sessions, shared by the web app, the CLI and migrations."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import re
import threading
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from sqlalchemy import Engine, Executable, Result, create_engine, event, func, select, text
from sqlalchemy.exc import DisconnectionError, IntegrityError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.util.typing import TupleAny

from app.config import get_settings
from app.sqlite_file import sqlite_pragmas, watch_sqlite_writes


class Base(DeclarativeBase):
    """Declarative base of every table."""


class DataDirError(RuntimeError):
    """The data directory cannot be created or written."""


def ensure_data_dir() -> None:
    """Create APP_DATA_DIR when missing so a fresh machine needs no manual step."""
    settings = get_settings()
    try:
        settings.app_data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataDirError(
            f"cannot create the data directory {settings.app_data_dir}: {exc.strerror}; "
            "set APP_DATA_DIR to a writable folder"
        ) from exc


IDLE_PING_SECONDS = 1.0
_RETURNED_AT = "returned_at"


def _note_return(_dbapi_connection: Any, record: Any) -> None:
    record.info[_RETURNED_AT] = time.monotonic()


def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """Check a PostgreSQL connection before use only when it sat unused for a while.

    Why not `pool_pre_ping`: a ping on every checkout was one more round trip per page, a
    tenth of the pages a class could open at once (issue 23). A connection given back a moment
    ago was working then; one that sat idle may have been cut (a database restart, a firewall),
    and is replaced here before a request meets it. A connection cut while busy fails its
    request, and SQLAlchemy then replaces every older connection of the pool.
    """
    returned = record.info.get(_RETURNED_AT)
    if returned is None or time.monotonic() - returned < IDLE_PING_SECONDS:
        return
    try:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT 1")
        finally:
            cursor.close()
        dbapi_connection.rollback()
    except Exception as exc:  # the driver's error for a dead connection, whatever its class
        raise DisconnectionError(f"database connection lost while idle: {exc}") from exc


_PLAIN_READ = re.compile(r"\s*(SELECT|SHOW)\b", re.IGNORECASE)
# An advisory lock held to the transaction's end is a locking read too (`serialize`).
_LOCKING_READ = re.compile(
    r"\bFOR\s+(UPDATE|SHARE|NO\s+KEY\s+UPDATE|KEY\s+SHARE)\b|\bpg_advisory_xact_lock\b", re.I
)
# Execution options of a write that is complete in itself (one INSERT whose failure leaves
# nothing to undo): outside a transaction it runs on its own, with no BEGIN and COMMIT round
# trips around it; inside one it joins it as any statement does.
ONE_STATEMENT: Mapping[str, bool] = MappingProxyType({"one_statement": True})  # shared: read-only


@functools.lru_cache(maxsize=2048)
def _reads_only(statement: str) -> bool:
    """Whether a statement is a plain read; remembered per SQL text, as the same few recur.

    Why: searching a long SELECT for FOR UPDATE on every execution cost 3-5 us of the 90-100 us
    of CPU a statement takes in SQLAlchemy and psycopg (issue 23); a statement's text is the same
    string object each time it comes from SQLAlchemy's cache, so the look-up hashes nothing new.
    """
    return bool(_PLAIN_READ.match(statement)) and not _LOCKING_READ.search(statement)


def _transaction_from_first_write(
    conn: Any, _cursor: Any, statement: str, _params: Any, context: Any, *_args: Any
) -> None:
    """PostgreSQL, web requests: reads run on their own, a transaction starts at the first write.

    Why: a page that only reads paid two round trips for BEGIN and ROLLBACK around its two or
    three SELECTs (issue 23). Under READ COMMITTED each SELECT sees its own snapshot inside a
    transaction too, so reading outside one changes no answer; everything from the first
    statement that is not a plain SELECT (a write, a locking read, a WITH) on is one
    transaction again, committed or rolled back whole, as before. A write marked ONE_STATEMENT
    (a lesson view) is that statement alone, as PostgreSQL runs any statement.
    """
    dbapi = conn.connection.dbapi_connection
    if dbapi is None or not dbapi.autocommit:
        return
    if _reads_only(statement):
        return
    if context is not None and context.execution_options.get("one_statement"):
        return
    dbapi.autocommit = False  # the driver sends BEGIN before this statement


def _reading_freely(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """Each checkout starts outside a transaction, whatever the last user of the connection did."""
    if dbapi_connection.autocommit:
        return
    try:
        dbapi_connection.rollback()  # nothing to undo: the session ended its transaction
        dbapi_connection.autocommit = True
    except Exception as exc:
        raise DisconnectionError(f"database connection in an unknown state: {exc}") from exc


Purpose = Literal["web", "background", "health"]
HEALTH_WAIT_SECONDS = 2.0  # /healthz must answer within its caller's timeout, database or not


def _health_engine(url: str) -> Engine:
    """One connection of its own for /healthz: a full web pool must not make it wait.

    It fails within seconds on PostgreSQL (connect and statement time-outs), and the pre-ping
    replaces a connection the last restart cut.
    """
    if url.startswith("sqlite"):
        ensure_data_dir()
        args: dict[str, Any] = {"check_same_thread": False, "timeout": HEALTH_WAIT_SECONDS}
    else:
        wait = int(HEALTH_WAIT_SECONDS)
        args = {"connect_timeout": wait, "options": f"-c statement_timeout={wait * 1000}"}
    return create_engine(
        url,
        connect_args=args,
        pool_size=1,
        max_overflow=0,
        pool_timeout=HEALTH_WAIT_SECONDS,
        pool_pre_ping=True,
    )


def _create_engine(purpose: Purpose) -> Engine:
    settings = get_settings()
    url = settings.sqlalchemy_url
    if purpose == "health":
        return _health_engine(url)
    if purpose == "web":
        size, wait = settings.web_db_connections, settings.web_db_wait_seconds
    else:
        size, wait = settings.background_db_connections, 30.0
    pool = {"pool_size": size, "max_overflow": 0, "pool_timeout": wait}
    if url.startswith("sqlite"):
        ensure_data_dir()
        engine = create_engine(url, connect_args={"check_same_thread": False}, **pool)
        event.listen(engine, "connect", sqlite_pragmas)
        watch_sqlite_writes(engine)
        return engine
    if purpose == "background":
        engine = create_engine(url, **pool)
    else:
        engine = create_engine(url, isolation_level="AUTOCOMMIT", **pool)
        event.listen(engine, "before_cursor_execute", _transaction_from_first_write)
        event.listen(engine.pool, "checkout", _reading_freely)
    event.listen(engine.pool, "checkin", _note_return)
    event.listen(engine.pool, "checkout", _ping_if_idle)
    return engine


class _Engines:
    """One engine per process and purpose, created lazily so settings can change in tests.

    Why two: web requests and background work (grading, the reaper, the LMS grade outbox) draw
    connections from separate pools, so a crowd of page loads can never starve a verdict.
    """

    def __init__(self) -> None:
        self._engines: dict[Purpose, Engine] = {}
        self._makers: dict[Purpose, sessionmaker[Session]] = {}
        self._lock = threading.Lock()

    def __call__(self, purpose: Purpose = "web") -> Engine:
        engine = self._engines.get(purpose)
        if engine is None:
            with self._lock:
                engine = self._engines.get(purpose)
                if engine is None:
                    engine = self._engines[purpose] = _create_engine(purpose)
        return engine

    def maker(self, purpose: Purpose) -> sessionmaker[Session]:
        """The sessionmaker of that engine, made once: each new one builds a Session class."""
        maker = self._makers.get(purpose)
        engine = self(purpose)
        if maker is None or maker.kw.get("bind") is not engine:
            maker = self._makers[purpose] = sessionmaker(bind=engine, expire_on_commit=False)
        return maker

    def created(self) -> list[Engine]:
        """The engines made so far."""
        return list(self._engines.values())

    def cache_clear(self) -> None:
        """Forget the engines (after settings changed); the next call makes new ones."""
        with self._lock:
            self._engines.clear()
            self._makers.clear()


get_engine = _Engines()


def session_factory(purpose: Purpose = "web") -> sessionmaker[Session]:
    """A sessionmaker bound to the process engine of that purpose."""
    return get_engine.maker(purpose)


def read_rows(
    session: Session, statement: Executable, params: Mapping[str, Any] | None = None
) -> Result[*TupleAny]:
    """Rows of a statement that selects columns (not mapped objects), run on the session's
    connection in its transaction, after flushing what the session holds (as its autoflush
    would).

    Why: `Session.execute` sends every statement through the ORM's compile and result
    layers, which cost as much CPU as SQLite running it (about 24 µs a statement here);
    a page's few hot reads (issue 54) need none of it.
    """
    if session.autoflush and (session.new or session.dirty or session.deleted):
        session.flush()
    return session.connection().execute(statement, params or {})


def release(session: Session) -> None:
    """End the session's read transaction so its connection goes back to the pool.

    Why: a request runs its dependencies and its endpoint in separate trips to the thread
    pool; a connection kept between trips is held while waiting for a thread, and enough such
    requests hold every connection while the threads wait for one (issue 23). Objects stay
    usable (expire_on_commit is off); pending changes are left for the endpoint to commit.
    """
    if not (session.new or session.dirty or session.deleted):
        session.commit()


def database_now(session: Session) -> dt.datetime:
    """The database server's clock (aware UTC): the one clock every process of a deployment shares.

    Why: leases and heartbeats are written by one machine and judged by another; taking both
    times from each process's own clock made a wall-clock jump on any of them re-run live jobs
    or keep dead ones (issue 52). On SQLite the database's clock is this machine's.
    """
    if session.get_bind().dialect.name == "postgresql":
        found = session.scalar(select(func.clock_timestamp()))
    else:
        found = dt.datetime.fromisoformat(
            str(session.scalar(select(func.strftime("%Y-%m-%d %H:%M:%f", "now"))))
        )
    if not isinstance(found, dt.datetime):
        raise TypeError(f"the database's clock answered {found!r}")
    return found.replace(tzinfo=dt.UTC) if found.tzinfo is None else found.astimezone(dt.UTC)


def serialize(session: Session, key: str) -> None:
    """Hold every other transaction that serializes on `key` off until this one ends.

    Why: a row made on first use with no unique key to meet (a course's first offering) was made
    twice by two requests at once; each reads again after this and finds the other's.
    PostgreSQL: an advisory lock on the key (it starts the transaction: `_LOCKING_READ`).
    SQLite has one writer: any write takes it.
    """
    if session.get_bind().dialect.name == "postgresql":
        digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
        session.execute(
            text("SELECT pg_advisory_xact_lock(:key)"),
            {"key": int.from_bytes(digest, "big", signed=True)},
        )
    else:
        session.execute(text("UPDATE alembic_version SET version_num = version_num WHERE 0"))


class WriteConflict(Exception):
    """Another request stored the row this one was about to store: read again, then retry."""


CONFLICT_ATTEMPTS = 3
_T = TypeVar("_T")


def retry_conflicts(session: Session, work: Callable[[], _T]) -> _T:
    """Run `work` (read, then insert what is missing, commit) again when another request stored
    the same row first (a double click, two tabs): the next run finds that row.

    Why: two requests that both read "missing" both insert; the second meets the unique
    constraint. Rolled back, it runs again and reads what the first stored.
    """
    for attempt in range(1, CONFLICT_ATTEMPTS + 1):
        try:
            return work()
        except (IntegrityError, WriteConflict):
            session.rollback()
            if attempt == CONFLICT_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


def dispose_engines() -> None:
    """Close every pooled connection of this process (tests, and forks that must not share)."""
    for engine in get_engine.created():
        engine.dispose()
