"""Alembic driven from code so `python -m app migrate` needs no alembic.ini lookup."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.exc import OperationalError

from app.config import ROOT
from app.db import get_engine


def alembic_config() -> Config:
    """Alembic config pointing at migrations/ with the settings' database URL."""
    cfg = Config()
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    return cfg


def upgrade_head() -> None:
    """Apply every pending migration (idempotent)."""
    command.upgrade(alembic_config(), "head")


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
    instead of a driver's traceback about a missing table.
    """
    script = ScriptDirectory.from_config(alembic_config())
    try:
        with get_engine().connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    except OperationalError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else "no answer"
        return f"cannot reach the database ({reason}): check DATABASE_URL"
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
