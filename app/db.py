"""Database engine and sessions, shared by the web app, the CLI and migrations."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Annotated, Any

from fastapi import Depends
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from app.config import get_settings


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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: no fsync per commit, still safe
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


@lru_cache
def get_engine() -> Engine:
    """One engine per process, created lazily so settings can change in tests."""
    settings = get_settings()
    url = settings.sqlalchemy_url
    if url.startswith("sqlite"):
        ensure_data_dir()
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def session_factory() -> sessionmaker[Session]:
    """A sessionmaker bound to the process engine."""
    return sessionmaker(bind=get_engine(), expire_on_commit=False)


def get_session() -> Iterator[Session]:
    """FastAPI dependency: one session per request, always closed."""
    with session_factory()() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
