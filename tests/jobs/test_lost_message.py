"""A job whose record of a send survived while its message did not is sent again within the
grace period, not after the 15-minute stale-message rule (real Redis).

Seen in `make compose-check` (restart redis mid-burst, 902.8 s): a send failed as Redis went
down, so did the removal of its record, and the row waited 15 minutes for the reaper to resend.
"""

from __future__ import annotations

import time

from app.grading.reaper import STALE_SECONDS
from app.jobs.base import JobRef
from app.jobs.redis_queue import RedisQueue
from tests.jobs.conftest import RedisSpace


def _queue(space: RedisSpace) -> RedisQueue:
    return RedisQueue(url=space.url, prefix=space.prefix, heartbeat_seconds=10)


def _record(queue: RedisQueue, key: str, age_seconds: float) -> None:
    """A record of a send made `age_seconds` ago, as `enqueue` writes it before sending."""
    queue.client.zadd(queue.sent_key, {key: time.time() - age_seconds})


def test_a_record_whose_message_is_gone_is_unsent(redis_space: RedisSpace) -> None:
    queue = _queue(redis_space)
    try:
        _record(queue, "12", 60)  # the message never reached Redis, or was lost with its data
        _record(queue, "check:7", 60)
        lost = JobRef("check", 7)
        assert queue.unsent([12, lost], STALE_SECONDS) == [12, lost]
    finally:
        queue.stop(1)


def test_a_waiting_message_is_not_sent_twice(redis_space: RedisSpace) -> None:
    queue = _queue(redis_space)
    try:
        queue.enqueue(13)  # nobody consumes: it waits in Dramatiq's queue
        queue.enqueue(JobRef("regrade", 5))
        _record(queue, "13", 60)  # as if sent a minute ago
        _record(queue, "regrade:5", 60)
        assert queue.unsent([13, JobRef("regrade", 5)], STALE_SECONDS) == []
    finally:
        queue.stop(1)


def test_a_send_in_progress_is_left_alone(redis_space: RedisSpace) -> None:
    """Recorded an instant ago, its message about to follow: not resent."""
    queue = _queue(redis_space)
    try:
        _record(queue, "14", 0)
        assert queue.unsent([14], STALE_SECONDS) == []
    finally:
        queue.stop(1)
