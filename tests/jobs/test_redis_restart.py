"""A message a worker had taken but not begun when Redis restarted is sent again seconds after
Redis is back, not after the reaper's 15-minute stale-message rule (a real Redis, restarted).

Seen in `make compose-check` (restart redis mid-burst, 905 s): Dramatiq's consumer had fetched
the message into its memory (moved to its worker's acknowledgement set) when the connection
broke. The consumer starts again with an empty cache; the message stays in Redis, held by a
worker that is alive and will never run it, so it looked like a message still waiting.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from app.grading.reaper import STALE_SECONDS
from app.jobs import redis_queue
from app.jobs.base import JobRef, Ref
from app.jobs.redis_queue import QUEUE_NAME, RedisQueue


class PrivateRedis:
    """A redis-server of this test's own, with an append-only file, so it can be restarted."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it and wait until it answers (its data comes back from the append-only file)."""
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed (Debian package redis-server)"
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--appendonly",
                "yes",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.RedisError:
                assert time.monotonic() < deadline, "the private redis-server did not start"
                time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        """SIGTERM: Redis writes its append-only file and exits, as `docker restart` has it."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(20)
            self.process = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def _uptime_at_least(client: redis.Redis, seconds: int) -> None:
    """Wait until Redis has been up this long (its INFO counts whole seconds)."""
    deadline = time.monotonic() + seconds + 10
    while int(client.info("server")["uptime_in_seconds"]) < seconds:
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_a_message_taken_but_not_begun_when_redis_restarts_is_sent_again(
    private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_queue, "LOST_AFTER_SECONDS", 1.0)
    queue = RedisQueue(url=private_redis.url, prefix="restart", heartbeat_seconds=60)
    try:
        queue.enqueue(21)  # waits in Dramatiq's queue
        queue.enqueue(JobRef("check", 4))
        fetched = queue.broker.do_fetch(QUEUE_NAME, 2)  # what a consumer takes into its cache
        assert len(fetched) == 2
        time.sleep(1.1)  # the records are older than the restart
        private_redis.stop()
        private_redis.start()
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
