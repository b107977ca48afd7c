"""A worker joining a running deployment grades only once its pool is warm, unless it is alone."""

from __future__ import annotations

import json
import threading

from app.grading.beacon import worker_id
from app.grading.worker import _others_ready, wait_until_warm
from tests.jobs.conftest import RedisSpace


def test_a_joining_worker_waits_for_its_pool_while_others_grade() -> None:
    checks = {"n": 0}

    def warm() -> bool:
        checks["n"] += 1
        return checks["n"] >= 3

    waited = wait_until_warm(
        warm=warm, others_ready=lambda: True, stopping=threading.Event(), limit_s=30
    )
    assert checks["n"] == 3
    assert waited > 0


def test_the_only_worker_takes_jobs_at_once() -> None:
    asked = {"warm": 0}

    def warm() -> bool:
        asked["warm"] += 1
        return False

    waited = wait_until_warm(
        warm=warm, others_ready=lambda: False, stopping=threading.Event(), limit_s=30
    )
    assert asked["warm"] == 1
    assert waited < 5


def test_the_wait_has_an_end_and_stops_on_a_signal() -> None:
    never = wait_until_warm(
        warm=lambda: False, others_ready=lambda: True, stopping=threading.Event(), limit_s=0.3
    )
    assert never >= 0.3
    stopping = threading.Event()
    stopping.set()
    assert wait_until_warm(warm=lambda: False, others_ready=lambda: True, stopping=stopping) < 1


def _announce(space: RedisSpace, ident: str, **record: object) -> None:
    space.client.set(f"{space.prefix}:workers:{ident}", json.dumps({"id": ident, **record}), ex=30)


def test_only_a_peer_that_takes_jobs_with_a_ready_grader_counts(redis_space: RedisSpace) -> None:
    assert not _others_ready(redis_space.client, redis_space.prefix)
    _announce(redis_space, worker_id(), taking_jobs=True, grader="ready")  # this process
    assert not _others_ready(redis_space.client, redis_space.prefix)
    _announce(redis_space, "elsewhere:1", taking_jobs=False, grader="ready")  # warming up too
    assert not _others_ready(redis_space.client, redis_space.prefix)
    _announce(redis_space, "elsewhere:2", taking_jobs=True, grader="unavailable: no bwrap")
    assert not _others_ready(redis_space.client, redis_space.prefix)
    _announce(redis_space, "elsewhere:3", taking_jobs=True, grader="ready")
    assert _others_ready(redis_space.client, redis_space.prefix)
