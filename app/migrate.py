"""Alembic driven from code so `python -m app migrate` needs no alembic.ini lookup."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

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
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    with get_engine().connect() as conn:
        return MigrationContext.configure(conn).get_current_revision() == head
