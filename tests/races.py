"""Two requests at once, interleaved by hand: the other request's work runs, whole and committed,
on a connection of its own right before this one's statement that matches (its insert, its lock),
which is where a request that read "missing" meets the row the other one stored."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.orm import Session

from app.db import session_factory

# A request's first step to write: the lock `app.db.serialize` takes, or (with none) an insert.
WRITING = re.compile(r"\s*(SELECT pg_advisory_xact_lock|UPDATE alembic_version|INSERT INTO)")


def inserting(table: str) -> re.Pattern[str]:
    """The statement that inserts into `table`."""
    return re.compile(rf'\s*INSERT INTO "?{table}"?\s', re.IGNORECASE)


@contextlib.contextmanager
def other_request_before(
    statement: re.Pattern[str], work: Callable[[Session], object]
) -> Iterator[list[bool]]:
    """Run `work` once, on its own engine and session, then commit, before the first statement of
    this process's engine that matches; yields a list that holds True once it ran."""
    engine = session_factory().kw["bind"]
    url = engine.url.render_as_string(False)
    ran: list[bool] = []

    def before(_conn: Any, _cursor: Any, text: str, *_args: Any) -> None:
        if ran or not statement.match(text):
            return
        ran.append(True)
        # An interleaving that cannot happen (this request already holds what the other needs)
        # fails in seconds instead of waiting for ever.
        waits = {"options": "-c lock_timeout=10s"} if url.startswith("postgresql") else {}
        other = create_engine(url, connect_args=waits)
        try:
            with Session(other) as session:
                work(session)
                session.commit()
        finally:
            other.dispose()

    event.listen(engine, "before_cursor_execute", before)
    try:
        yield ran
    finally:
        event.remove(engine, "before_cursor_execute", before)
