"""Leases survive wall-clock jumps: no live job re-runs, no dead worker's job stays running.

Lease times come from the database's clock (shared by every process of a deployment), and the
reaper judges a lease by how long it saw it go unrenewed on its own monotonic clock, so a jump
of any wall clock, a process's or the database server's, changes neither answer. The process
clocks are jumped by replacing `utcnow` where the old code read it; the database's own clock
(the machine's, which the tests may not change) by replacing `database_now`.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest

from app.db import session_factory
from app.grading import leases
from app.grading.lease_watch import LeaseWatch
from app.jobs import lease_rule, tasks
from app.jobs.models import Job
from tests.faults import jump_process_clock
from tests.jobs.conftest import add_submissions, rows

HOUR = dt.timedelta(hours=1)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    """Each test on the embedded database and on the real PostgreSQL."""
    request.getfixturevalue("data_dir" if request.param == "sqlite" else "scale_env")
    return str(request.param)


class Ticks:
    """A monotonic clock the test advances."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _jump_process_clock(monkeypatch: pytest.MonkeyPatch, by: dt.timedelta) -> None:
    assert jump_process_clock(monkeypatch, by) > 0


def _jump_database_clock(monkeypatch: pytest.MonkeyPatch, by: dt.timedelta) -> None:
    real = lease_rule.database_now  # the one lease rule stamps every kind of job
    monkeypatch.setattr(lease_rule, "database_now", lambda session: real(session) + by)


def _reap(watch: LeaseWatch) -> tuple[list[int], list[int]]:
    with session_factory("background")() as session:
        return leases.expire(session=session, max_attempts=3, watch=watch)


def _claim(sid: int, lease: float = 30) -> leases.Claim:
    with session_factory("background")() as session:
        held = leases.claim(session=session, submission_id=sid, lease_seconds=lease)
    assert held is not None
    return held


def _renew(held: leases.Claim, lease: float = 30) -> None:
    # A worker renews every third of a lease (seconds apart), so each renewal writes a later
    # lease; here they come microseconds apart, and SQLite's clock counts milliseconds: two
    # renewals in one millisecond wrote the same lease, which the reaper took for no renewal.
    time.sleep(0.002)
    with session_factory("background")() as session:
        assert (
            leases.renew(
                session=session, held={held.submission_id: held.token}, lease_seconds=lease
            )
            == []
        )


@pytest.mark.parametrize("jump", [HOUR, -HOUR])
def test_a_jump_of_a_process_clock_neither_reruns_nor_strands(
    database: str, monkeypatch: pytest.MonkeyPatch, jump: dt.timedelta
) -> None:
    live, dead = add_submissions(["x = 1", "y = 2"])
    held = _claim(live)
    _jump_process_clock(monkeypatch, jump)  # the worker that claims the other job, or the reaper
    _claim(dead)  # ...and dies holding it
    ticks = Ticks()
    watch = LeaseWatch(lease_seconds=30, clock=ticks)
    passes = []
    for _ in range(4):  # two minutes of reaper passes; the live worker renews, the dead one not
        passes.append(_reap(watch))
        _renew(held)
        ticks.now += 30
    assert passes == [([], []), ([dead], []), ([], []), ([], [])]
    assert rows([live])[live].status == "running"  # never taken from its worker
    found = rows([dead])[dead]
    assert found.status == "queued" and found.attempts == 1  # re-queued once, not stranded


@pytest.mark.parametrize("jump", [HOUR, -HOUR])
def test_a_jump_of_the_database_clock_neither_reruns_nor_strands(
    database: str, monkeypatch: pytest.MonkeyPatch, jump: dt.timedelta
) -> None:
    live, dead = add_submissions(["x = 1", "y = 2"])
    held, _ = _claim(live), _claim(dead)  # the second worker dies now
    ticks = Ticks()
    watch = LeaseWatch(lease_seconds=30, clock=ticks)
    assert _reap(watch) == ([], [])
    _jump_database_clock(monkeypatch, jump)  # forward: every lease looks lapsed; back: fresh
    ticks.now += 10
    _renew(held)
    assert _reap(watch) == ([], [])  # 10 s: nothing lapsed, whatever the database says
    ticks.now += 20
    _renew(held)
    assert _reap(watch) == ([dead], [])  # 30 s without a renewal: lapsed, jump or not
    ticks.now += 30
    _renew(held)
    assert _reap(watch) == ([], [])
    assert rows([live])[live].status == "running"
    assert rows([dead])[dead].status == "queued"


def test_a_running_job_is_not_claimed_again_by_a_second_message(database: str) -> None:
    (sid,) = add_submissions(["x = 1"])
    _claim(sid, lease=0.1)
    time.sleep(0.3)
    with session_factory()() as session:  # however late, only the reaper takes a lease back
        assert leases.claim(session=session, submission_id=sid, lease_seconds=30) is None


def test_a_lease_is_stamped_by_the_database_clock(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (sid,) = add_submissions(["x = 1"])
    _jump_process_clock(monkeypatch, 24 * HOUR)
    _claim(sid, lease=30)
    with session_factory()() as session:
        now = lease_rule.database_now(session)
    expires = rows([sid])[sid].lease_expires_at
    assert expires is not None
    left = (expires.replace(tzinfo=dt.UTC) - now).total_seconds()
    assert 25 < left <= 30


@pytest.mark.parametrize("jump", [HOUR, -HOUR])
def test_a_typed_job_keeps_the_same_rule_through_a_database_clock_jump(
    database: str, monkeypatch: pytest.MonkeyPatch, jump: dt.timedelta
) -> None:
    # A check or an LMS post is leased by the same rule as a grade (app/jobs/lease_rule.py).
    with session_factory("background")() as session:
        live, dead = (tasks.create(session=session, kind="check", payload={}).id for _ in "ab")
        session.commit()
    with session_factory("background")() as session:
        held, other = (
            tasks.claim(session=session, job_id=i, lease_seconds=30) for i in (live, dead)
        )
    assert held is not None and other is not None
    ticks = Ticks()
    watch = LeaseWatch(lease_seconds=30, clock=ticks)

    def reap() -> tuple[list[int], list[int]]:
        with session_factory("background")() as session:
            again, ended = tasks.expire(session=session, max_attempts=3, watch=watch)
        return [r.id for r in again], [r.id for r in ended]

    def renew() -> None:
        with session_factory("background")() as session:
            lost = tasks.renew(session=session, held={live: held.token}, lease_seconds=30)
        assert lost == []

    assert reap() == ([], [])
    _jump_database_clock(monkeypatch, jump)
    ticks.now += 10
    renew()
    assert reap() == ([], [])  # 10 s: nothing lapsed, whatever the database says
    ticks.now += 20
    renew()
    assert reap() == ([dead], [])  # 30 s without a renewal: lapsed, jump or not
    with session_factory()() as session:
        states = {j.id: j.state for j in session.query(Job).where(Job.id.in_((live, dead)))}
    assert states == {live: "running", dead: "queued"}
