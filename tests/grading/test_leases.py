"""The job semantics on the row, on SQLite and on PostgreSQL: claim, fence, expire, give up."""

from __future__ import annotations

import time

import pytest

from app.db import session_factory
from app.grading import leases
from app.grading.lease_watch import LeaseWatch
from tests.jobs.conftest import add_submissions, rows

REPORT = {"verdict": "accepted", "score": 1.0, "message": "ok", "duration_ms": 5.0, "tests": []}


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str:
    """Run each test on the embedded database and on the real PostgreSQL."""
    request.getfixturevalue("data_dir" if request.param == "sqlite" else "scale_env")
    return str(request.param)


def test_a_job_is_claimed_once_while_its_lease_lasts(database: str) -> None:
    (sid,) = add_submissions(["x = 1"])
    with session_factory()() as session:
        first = leases.claim(session=session, submission_id=sid, lease_seconds=30)
        second = leases.claim(session=session, submission_id=sid, lease_seconds=30)
    assert first is not None and first.token == 1 and first.code == "x = 1"
    assert second is None
    assert rows([sid])[sid].status == "running"


def test_only_the_latest_claim_may_store_the_report(database: str) -> None:
    (sid,) = add_submissions(["x = 1"])
    watch = LeaseWatch(lease_seconds=0.2)
    with session_factory()() as session:
        old = leases.claim(session=session, submission_id=sid, lease_seconds=0.2)
        assert old is not None
        assert leases.expire(session=session, max_attempts=3, watch=watch) == ([], [])
        time.sleep(0.4)  # the first worker froze past its lease: the reaper takes it back
        assert leases.expire(session=session, max_attempts=3, watch=watch) == ([sid], [])
        new = leases.claim(session=session, submission_id=sid, lease_seconds=30)
        assert new is not None and new.token == 2
        assert leases.renew(session=session, held={sid: old.token}, lease_seconds=30) == [sid]
        assert not leases.finish(session=session, held=old, report=REPORT)
        assert leases.finish(session=session, held=new, report={**REPORT, "score": 0.5})
        assert not leases.finish(session=session, held=new, report=REPORT)  # a second store
    row = rows([sid])[sid]
    assert (row.status, row.score, row.attempts, row.lease_expires_at) == ("done", 0.5, 2, None)


def test_expired_leases_are_requeued_once_then_given_up(database: str) -> None:
    sid, other = add_submissions(["x = 1", "y = 2"])
    watch, twin = LeaseWatch(lease_seconds=0.1), LeaseWatch(lease_seconds=0.1)
    with session_factory()() as session:
        for attempt in (1, 2):
            held = leases.claim(session=session, submission_id=sid, lease_seconds=0.1)
            assert held is not None and held.token == attempt
            assert leases.expire(session=session, max_attempts=2, watch=watch) == ([], [])
            assert leases.expire(session=session, max_attempts=2, watch=twin) == ([], [])
            time.sleep(0.3)
            requeued, gave_up = leases.expire(session=session, max_attempts=2, watch=watch)
            if attempt == 1:
                assert (requeued, gave_up) == ([sid], [])
                assert rows([sid])[sid].status == "queued"
                # a second reaper running at the same moment finds nothing to do
                assert leases.expire(session=session, max_attempts=2, watch=twin) == ([], [])
            else:
                assert (requeued, gave_up) == ([], [sid])
    row = rows([sid])[sid]
    assert row.status == "done" and row.verdict == "internal_error"
    assert "not yours" in (row.message or "")
    assert rows([other])[other].status == "queued"


def test_released_jobs_wait_again_and_sweeps_see_them(database: str) -> None:
    sid, done = add_submissions(["x = 1", "y = 2"])
    with session_factory()() as session:
        held = leases.claim(session=session, submission_id=sid, lease_seconds=30)
        finished = leases.claim(session=session, submission_id=done, lease_seconds=30)
        assert held is not None and finished is not None
        assert leases.finish(session=session, held=finished, report=REPORT)
        assert leases.release(session=session, held=held)
        assert leases.not_queued(session=session, ids=[sid, done, 10**9]) == {done, 10**9}
        assert leases.counts(session=session) == {"queued": 1, "done": 1}


def test_the_behaviour_key_is_stored_in_its_indexed_column(database: str) -> None:
    sid, other = add_submissions(["x = 1", "y = 2"])
    wrong = {**REPORT, "verdict": "wrong_answer", "score": 0.0}
    with session_factory()() as session:
        for submission_id, report in (
            (sid, {**wrong, "behaviour": {"key": "0123456789abcdef", "tests": []}}),
            (other, wrong),  # a report from before signatures: no key
        ):
            held = leases.claim(session=session, submission_id=submission_id, lease_seconds=30)
            assert held is not None
            assert leases.finish(session=session, held=held, report=report)
    found = rows([sid, other])
    assert (found[sid].behaviour_key, found[other].behaviour_key) == ("0123456789abcdef", None)
