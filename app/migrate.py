"""Alembic driven from code so `python -m app migrate` needs no alembic.ini lookup."""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from app.config import ROOT, get_settings
from app.db import get_engine

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)
NEVER_ANSWERED = (
    "the database at {where} did not answer within {seconds:g} s ({reason}): start it, or "
    "point DATABASE_URL at one that runs (DATABASE_WAIT_SECONDS sets how long to wait)"
)


def alembic_config() -> Config:
    """Alembic config pointing at migrations/ with the settings' database URL."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    return cfg


def upgrade_head() -> None:
    """Apply every pending migration (idempotent)."""
    from alembic import command

    command.upgrade(alembic_config(), "head")


def _first_line(exc: DBAPIError) -> str:
    said = str(exc.orig if exc.orig is not None else exc).strip().splitlines()
    return said[0] if said else type(exc).__name__


def wait_for_database() -> str | None:
    """Wait up to DATABASE_WAIT_SECONDS for a database server to answer; None once it does,
    else one sentence naming the fix.

    Why: in a deployment the database often starts beside the app (compose, a reboot); failing
    at the first refused connection made start order matter, and a traceback said nothing.
    SQLite is a file, nothing to wait for.
    """
    settings = get_settings()
    url = make_url(settings.sqlalchemy_url)
    if url.get_backend_name() == "sqlite":
        return None
    where = f"{url.host or 'localhost'}:{url.port or 5432}/{url.database or ''}"
    deadline = time.monotonic() + settings.database_wait_seconds
    said = False
    engine = get_engine("health")  # connect and statement time-outs of a few seconds
    try:
        while True:
            try:
                with engine.connect() as conn:
                    conn.execute(text("SELECT 1"))
                return None
            except DBAPIError as exc:
                reason = _first_line(exc)
            left = deadline - time.monotonic()
            if left <= 0:
                seconds = settings.database_wait_seconds
                return NEVER_ANSWERED.format(where=where, seconds=seconds, reason=reason)
            if not said:
                log.warning(
                    "waiting up to %g s for the database at %s (%s)",
                    settings.database_wait_seconds,
                    where,
                    reason,
                )
                said = True
            time.sleep(min(1.0, left))
    finally:
        engine.dispose()


def is_up_to_date() -> bool:
    """Whether the database schema is at the newest migration."""
    return schema_problem() is None


NOT_SET_UP = (
    "the database is not set up yet: run `python -m app migrate` "
    "(or `make run`, which also does it), then try again"
)


def schema_problem() -> str | None:
    """Why the database cannot be used yet, as a sentence an operator can act on; None if ready.

    Checked before any command that uses the database, so a fresh install gets this sentence
    instead of a driver's traceback about a missing table. A database at the newest revision is
    recognised without alembic, whose import took 0.2 s of every `serve` start (issue 54).
    """
    try:
        with get_engine().connect() as conn:
            stored = _stored_revisions(conn)
    except OperationalError as exc:
        return _unreachable(exc)
    if not stored:
        return NOT_SET_UP
    if len(stored) == 1 and stored[0] == newest_revision():
        return None
    return _revision_problem()


def _unreachable(exc: OperationalError) -> str:
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else "no answer"
    return f"cannot reach the database ({reason}): check DATABASE_URL"


def _stored_revisions(conn: Connection) -> list[str]:
    """The revisions alembic recorded in this database; none before the first `migrate`."""
    if not inspect(conn).has_table("alembic_version"):
        return []
    return [str(v) for v in conn.execute(text("SELECT version_num FROM alembic_version")).scalars()]


_REVISION_LINE = re.compile(
    r"""^(down_revision|revision)\b[^=\n]*=\s*(?:None|"([^"]*)"|'([^']*)')\s*$""", re.M
)


def newest_revision() -> str | None:
    """The one head of migrations/versions, read from the files' `revision` lines; None when
    they do not name exactly one (alembic then decides)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (ROOT / "migrations" / "versions").glob("*.py"):
        found = {m[1]: m[2] or m[3] for m in _REVISION_LINE.finditer(path.read_text("utf-8"))}
        if not found.get("revision") or "down_revision" not in found:
            return None  # a file these lines do not describe (a merge's tuple, say)
        revisions.add(found["revision"])
        if found["down_revision"]:
            parents.add(found["down_revision"])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def _revision_problem() -> str | None:
    """Alembic's own reading of the database's revision against the scripts'."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    try:
        with get_engine().connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    except OperationalError as exc:
        return _unreachable(exc)
    if current is None:
        return NOT_SET_UP
    if current == script.get_current_head():
        return None
    if current not in {rev.revision for rev in script.walk_revisions()}:
        return (
            f"the database was set up by a newer version of the app (revision {current}): "
            "run that version, or restore a backup made for this one"
        )
    return "the database schema is older than this app: run `python -m app migrate`, then try again"
