"""The embedded default: same job semantics, in one process, recovered from the database."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.db import session_factory
from app.grading import leases
from app.grading.runtime import JobRuntime
from app.jobs.embedded import EmbeddedQueue
from app.jobs.redis_queue import RedisQueue
from app.jobs.status import LocalWatcher, RedisWatcher
from app.main import create_app
from tests.jobs.conftest import add_submissions, rows
from tests.jobs.helpers import GOOD, wait_until


def test_the_mode_follows_redis_url(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    embedded = JobRuntime(get_settings(), grade=get_settings().grades_in_web)
    assert isinstance(embedded.queue, EmbeddedQueue) and embedded.grade
    assert isinstance(embedded.watcher, LocalWatcher)
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/5")
    get_settings.cache_clear()
    settings = get_settings()
    assert settings.distributed and not settings.grades_in_web
    scaled = JobRuntime(settings, grade=settings.grades_in_web)
    assert isinstance(scaled.queue, RedisQueue) and not scaled.grade
    assert isinstance(scaled.watcher, RedisWatcher)
    monkeypatch.setenv("SERVE_GRADES", "true")
    get_settings.cache_clear()
    assert get_settings().grades_in_web
    scaled.queue.stop(0)


def test_jobs_left_by_a_stopped_process_are_graded_at_the_next_start(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEASE_SECONDS", "2")
    monkeypatch.setenv("REAPER_INTERVAL_SECONDS", "0.5")
    get_settings.cache_clear()
    waiting, interrupted = add_submissions([GOOD, GOOD])
    with session_factory()() as session:  # the previous process died while grading this one
        assert leases.claim(session=session, submission_id=interrupted, lease_seconds=2)
    with TestClient(create_app()):
        wait_until(
            lambda: {r.status for r in rows([waiting, interrupted]).values()} == {"done"},
            180,
            "both jobs",
        )
    found = rows([waiting, interrupted])
    assert (found[waiting].verdict, found[waiting].attempts) == ("accepted", 1)
    assert (found[interrupted].verdict, found[interrupted].attempts) == ("accepted", 2)


def test_stopping_leaves_no_job_running(data_dir: Path) -> None:
    ids = add_submissions([GOOD] * 6)
    with TestClient(create_app()):
        pass  # stop at once: jobs in hand finish or go back to the queue
    assert {r.status for r in rows(ids).values()} <= {"queued", "done"}
    with TestClient(create_app()):
        wait_until(lambda: {r.status for r in rows(ids).values()} == {"done"}, 300, "all six")
    assert {r.attempts for r in rows(ids).values()} <= {1, 2}


def test_a_failing_grader_is_retried_then_reported_as_our_fault(
    content_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REAPER_INTERVAL_SECONDS", "0.2")
    get_settings.cache_clear()
    cases = content_dir / "exercises" / "position-embedding-gather" / "cases.py"
    cases.write_text("this is not python (\n")  # the grader cannot load the exercise's tests
    (sid,) = add_submissions([GOOD])
    with TestClient(create_app()) as client:
        client.app.state.jobs.reaper.grace_seconds = 0.0  # type: ignore[attr-defined]
        wait_until(lambda: rows([sid])[sid].status == "done", 120, "the last attempt")
    row = rows([sid])[sid]
    assert row.verdict == "internal_error" and "not yours" in (row.message or "")
    assert row.attempts == get_settings().max_job_attempts == 3
