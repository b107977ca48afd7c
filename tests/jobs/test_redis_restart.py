"""A message a worker had taken but not begun when Redis restarted is sent again seconds after
Redis is back, not after the reaper's 15-minute stale-message rule (a real Redis, restarted).

Seen in `make compose-check` (restart redis mid-burst, 905 s): Dramatiq's consumer had fetched
the message into its memory (moved to its worker's acknowledgement set) when the connection
broke. The consumer starts again with an empty cache; the message stays in Redis, held by a
worker that is alive and will never run it, so it looked like a message still waiting.
"""

from __future__ import annotations

import time

import pytest
import redis

from app.grading.reaper import STALE_SECONDS
from app.jobs import redis_queue
from app.jobs.base import JobRef, Ref
from app.jobs.redis_queue import QUEUE_NAME, RedisQueue
from tests.jobs.conftest import PrivateRedis


def _uptime_at_least(client: redis.Redis, seconds: int) -> None:
    """Wait until Redis has been up this long (its INFO counts whole seconds)."""
    deadline = time.monotonic() + seconds + 10
    while int(client.info("server")["uptime_in_seconds"]) < seconds:
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_a_message_taken_but_not_begun_when_redis_restarts_is_sent_again(
    private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    port, procs, restart = private_redis
    monkeypatch.setattr(redis_queue, "LOST_AFTER_SECONDS", 1.0)
    queue = RedisQueue(url=f"redis://127.0.0.1:{port}/0", prefix="restart", heartbeat_seconds=60)
    try:
        queue.enqueue(21)  # waits in Dramatiq's queue
        queue.enqueue(JobRef("check", 4))
        fetched = queue.broker.do_fetch(QUEUE_NAME, 2)  # what a consumer takes into its cache
        assert len(fetched) == 2
        time.sleep(1.1)  # the records are older than the restart
        queue.client.save()  # what compose's append-only file keeps over a restart
        procs[-1].terminate()
        procs[-1].wait(20)
        restart(port)
        taken: list[Ref] = [21, JobRef("check", 4)]
        # The worker that took them is alive, so Dramatiq never hands them back.
        assert queue.unsent(taken, STALE_SECONDS) == []  # Redis back an instant ago: not yet
        time.sleep(1.5)  # INFO counts whole seconds, on a clock it reads every 100 ms
        queue.enqueue(22)  # sent after the restart: it waits in the queue, as it should
        _uptime_at_least(queue.client, 3)
        assert queue.unsent([*taken, 22], STALE_SECONDS) == taken
        for ref in taken:  # the reaper sends them again: their new records are after the restart
            queue.enqueue(ref)
        assert queue.unsent([*taken, 22], STALE_SECONDS) == []
    finally:
        queue.stop(1)
