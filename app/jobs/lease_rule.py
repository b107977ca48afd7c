"""The one lease rule, for every table whose rows are jobs (submissions and typed `jobs`).

Why one module: a claim, a renewal and a reset after a lapsed lease must mean the same thing for
a grade and for a check or an LMS post, or one kind of job could run twice or never. A row is
taken only while queued (its attempt counter becomes the fencing token), renewed only by the
holder of the current token, and reset only if its lease is still the one the watch timed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.db import database_now
from app.jobs.lease_watch import Lease, LeaseWatch


@dataclass(frozen=True)
class LeasedTable:
    """Where a table keeps its lease: the row id, its state, the token and the lease's end."""

    entity: type[Any]
    id: InstrumentedAttribute[int]
    state: InstrumentedAttribute[str]
    attempts: InstrumentedAttribute[int]
    expires: InstrumentedAttribute[dt.datetime | None]

    def held(self, row_id: int, token: int) -> tuple[ColumnElement[bool], ...]:
        """The row, still running under this token."""
        return (self.id == row_id, self.attempts == token, self.state == "running")


def take(
    *, session: Session, table: LeasedTable, row_id: int, lease_seconds: float, **values: Any
) -> bool:
    """Mark a queued row running with a fresh lease and token (committed); False if not queued.

    A running row is never taken over here, however old its lease looks: a clock may have
    jumped. The reaper re-queues it once its lease truly lapsed (`reset_lapsed`).
    """
    now = database_now(session)
    result = session.execute(
        update(table.entity)
        .where(table.id == row_id, table.state == "queued")
        .values(
            {
                _name(table.state): "running",
                _name(table.expires): now + dt.timedelta(seconds=lease_seconds),
                _name(table.attempts): table.attempts + 1,
                **{k: (now if v is NOW else v) for k, v in values.items()},
            }
        )
    )
    session.commit()
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]


NOW = object()  # in `take`'s values: the database's time of the claim


def renew(
    *, session: Session, table: LeasedTable, held: dict[int, int], lease_seconds: float
) -> list[int]:
    """Extend the leases of the rows held ({id: token}); return the ids whose lease was lost."""
    until = database_now(session) + dt.timedelta(seconds=lease_seconds)
    lost = []
    for row_id, token in held.items():
        result = session.execute(
            update(table.entity)
            .where(*table.held(row_id, token))
            .values({_name(table.expires): until})
        )
        if result.rowcount != 1:  # type: ignore[attr-defined]
            lost.append(row_id)
    session.commit()
    return lost


def reset_lapsed(
    *,
    session: Session,
    table: LeasedTable,
    watch: LeaseWatch,
    max_attempts: int,
    gave_up: Callable[[int, int, dt.datetime], dict[str, Any]],
) -> tuple[list[int], list[int]]:
    """Re-queue running rows whose lease lapsed, or end them with `gave_up(row id, attempts, now)`'s
    values after `max_attempts`: (re-queued ids, given-up ids), committed.

    Each reset is conditional on the lease being the one the watch saw, so a renewal in between
    keeps the row, and when several reapers run at once exactly one of them resets a given row.
    """
    running = session.execute(
        select(table.id, table.attempts, table.expires).where(table.state == "running")
    ).all()
    lapsed: list[Lease] = watch.lapsed((int(i), int(a), e) for i, a, e in running)
    requeued: list[int] = []
    ended: list[int] = []
    now = database_now(session) if lapsed else None
    for row_id, attempts, expires in lapsed:
        unchanged = (
            table.id == row_id,
            table.state == "running",
            table.attempts == attempts,
            table.expires.is_(None) if expires is None else table.expires == expires,
        )
        if attempts >= max_attempts:
            assert now is not None
            values, target = gave_up(row_id, attempts, now), ended
        else:
            values, target = {_name(table.expires): None, _name(table.state): "queued"}, requeued
        result = session.execute(update(table.entity).where(*unchanged).values(**values))
        if result.rowcount == 1:  # type: ignore[attr-defined]
            target.append(row_id)
    session.commit()
    return requeued, ended


def _name(column: InstrumentedAttribute[Any]) -> str:
    return str(column.key)
