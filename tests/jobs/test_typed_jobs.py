"""Typed jobs (not submissions) on both queues: one lease rule, the reaper retries every kind,
and a job that keeps failing ends `failed` with a sentence, never spinning for ever."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.config import get_settings
from app.db import session_factory
from app.grading.runtime import JobRuntime
from app.grading.tasks import TaskRun
from app.hooks import JOB_KINDS
from app.jobs import tasks
from app.jobs.base import JobRef, parse_key
from app.jobs.models import Job
from tests.jobs.conftest import RedisSpace
from tests.jobs.helpers import wait_until

TIMEOUT = 60.0


class Kinds:
    """Two test kinds: `echo` counts its runs and answers, `broken` always raises."""

    def __init__(self) -> None:
        self.runs: list[int] = []
        self.lock = threading.Lock()

    def echo(self, run: TaskRun) -> dict[str, Any]:
        with self.lock:
            self.runs.append(run.claim.job_id)
        assert run.progress({"half": True})
        return {"echo": run.payload["text"]}

    def broken(self, run: TaskRun) -> dict[str, Any]:
        raise RuntimeError("the cases file is missing")


@pytest.fixture
def kinds() -> Iterator[Kinds]:
    found = Kinds()
    JOB_KINDS.plug("echo", found.echo)
    JOB_KINDS.plug("broken", found.broken)
    yield found
    JOB_KINDS.plugs.pop("echo", None)
    JOB_KINDS.plugs.pop("broken", None)


def add_job(kind: str, payload: dict[str, Any]) -> int:
    with session_factory()() as session:
        job = tasks.create(session=session, kind=kind, payload=payload)
        session.commit()
        return job.id


def job(job_id: int) -> Job:
    with session_factory()() as session:
        found = session.get(Job, job_id)
        assert found is not None
        session.expunge(found)
        return found


def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEASE_SECONDS", "2")
    monkeypatch.setenv("REAPER_INTERVAL_SECONDS", "0.3")
    monkeypatch.setenv("POOL_WARM_ON_START", "false")
    get_settings.cache_clear()


def runtime() -> JobRuntime:
    made = JobRuntime(get_settings(), grade=True, concurrency=2, role="worker")
    made.reaper.grace_seconds = 0.5
    return made


def test_a_key_names_its_kind_and_a_bare_id_is_a_grade() -> None:
    assert JobRef("grade", 12).key() == "12" and parse_key("12") == JobRef("grade", 12)
    assert parse_key(JobRef("check", 7).key()) == JobRef("check", 7)
    assert parse_key(b"lms_post:3") == JobRef("lms_post", 3)


def _a_dead_worker_job_is_retried_and_finishes_once(kinds: Kinds) -> None:
    killed = add_job("echo", {"text": "hello"})
    with session_factory("background")() as session:  # a worker took it, then was SIGKILLed
        claim = tasks.claim(session=session, job_id=killed, lease_seconds=2)
        assert claim is not None and claim.token == 1
    fresh = add_job("echo", {"text": "again"})
    jobs = runtime()
    jobs.start()
    try:
        jobs.queue.enqueue(JobRef("echo", fresh))
        wait_until(lambda: job(killed).state == "done", TIMEOUT, "the dead worker's job")
        wait_until(lambda: job(fresh).state == "done", TIMEOUT, "the other job")
    finally:
        jobs.stop(5)
    found = job(killed)
    assert (found.attempts, found.result) == (2, {"echo": "hello"})
    assert kinds.runs.count(killed) == 1 and kinds.runs.count(fresh) == 1  # ran here once each
    assert job(fresh).attempts == 1


def _a_failing_job_ends_failed_after_its_attempts(kinds: Kinds) -> None:
    failing = add_job("broken", {})
    jobs = runtime()
    jobs.start()
    try:
        jobs.queue.enqueue(JobRef("broken", failing))
        wait_until(lambda: job(failing).state == "failed", TIMEOUT, "the failing job to give up")
    finally:
        jobs.stop(5)
    found = job(failing)
    assert found.attempts == get_settings().max_job_attempts == 3
    assert found.error == (
        "This job failed 3 times; the last error: RuntimeError: the cases file is missing"
    )


def test_embedded_a_dead_worker_job_is_retried_and_finishes_once(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, kinds: Kinds
) -> None:
    fast(monkeypatch)
    _a_dead_worker_job_is_retried_and_finishes_once(kinds)


def test_embedded_a_failing_job_ends_failed(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, kinds: Kinds
) -> None:
    fast(monkeypatch)
    _a_failing_job_ends_failed_after_its_attempts(kinds)


def test_redis_a_dead_worker_job_is_retried_and_finishes_once(
    scale_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, kinds: Kinds
) -> None:
    fast(monkeypatch)
    _a_dead_worker_job_is_retried_and_finishes_once(kinds)


def test_redis_a_failing_job_ends_failed(
    scale_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    kinds: Kinds,
    redis_space: RedisSpace,
) -> None:
    fast(monkeypatch)
    _a_failing_job_ends_failed_after_its_attempts(kinds)
    assert not [k for k in redis_space.all_keys() if k.endswith(":jobs:sent")] or (
        redis_space.client.zcard(f"{redis_space.prefix}:jobs:sent") == 0
    )


def test_a_job_of_an_unknown_kind_fails_with_a_sentence(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast(monkeypatch)
    lost = add_job("nobody-knows", {})
    jobs = runtime()
    jobs.start()
    try:
        jobs.queue.enqueue(JobRef("nobody-knows", lost))
        wait_until(lambda: job(lost).state == "failed", TIMEOUT, "the unknown job")
    finally:
        jobs.stop(5)
    assert job(lost).error == "No worker of this deployment knows jobs of kind 'nobody-knows'."
