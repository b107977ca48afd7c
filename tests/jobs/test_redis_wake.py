"""The queue's wake-up on the real Redis: an idle consumer waits, a send wakes it, none is lost."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from dramatiq.brokers.redis import _RedisConsumer

from app.jobs import redis_wake
from app.jobs.redis_queue import QUEUE_NAME, RedisQueue
from app.jobs.redis_wake import WAKE_TOKENS_KEPT, wake_key
from tests.jobs.conftest import RedisSpace
from tests.jobs.helpers import wait_until


@pytest.fixture
def queue(redis_space: RedisSpace) -> Iterator[RedisQueue]:
    """A producer and broker on this test's key prefix (no worker threads)."""
    made = RedisQueue(url=redis_space.url, prefix=redis_space.prefix, heartbeat_seconds=10)
    # Named connections: CLIENT LIST then tells this test's waiting consumer from others'.
    made.client.connection_pool.connection_kwargs["client_name"] = redis_space.prefix
    made.client.connection_pool.disconnect()
    yield made
    made.stop(1)


def next_message(consumer: _RedisConsumer) -> Any:
    """What one turn of the consumer gives: a message's first argument, or None."""
    found = next(consumer)
    return None if found is None else found.args[0]


def in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """Run `work` in a thread; its result lands in the returned list."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(work()), daemon=True)
    thread.start()
    return thread, out


def waiting_in_redis(space: RedisSpace) -> bool:
    """Whether this test's queue has a connection blocked in BLPOP right now."""
    clients = space.client.client_list()
    return any(c.get("name") == space.prefix and c.get("cmd") == "blpop" for c in clients)


def test_every_send_leaves_a_token_and_the_list_stays_short(
    queue: RedisQueue, redis_space: RedisSpace
) -> None:
    ns = queue.broker.namespace
    queue.actor.send(1)
    assert redis_space.client.llen(wake_key(ns, QUEUE_NAME)) == 1
    for sid in range(40):
        queue.actor.send(sid)
    assert redis_space.client.llen(wake_key(ns, QUEUE_NAME)) == WAKE_TOKENS_KEPT
    # A retry goes to the delay queue: its own consumer is woken.
    queue.actor.send_with_options(args=(7,), delay=10)
    assert redis_space.client.llen(wake_key(ns, f"{QUEUE_NAME}.DQ")) == 1


def test_an_idle_consumer_waits_on_redis_instead_of_polling(queue: RedisQueue) -> None:
    consumer = queue.broker.consume(QUEUE_NAME, prefetch=1, timeout=1000)
    turns = 0
    started = time.monotonic()
    while time.monotonic() - started < 2.5:
        assert next_message(consumer) is None
        turns += 1
    # Each idle turn waits up to a second on the wake-up list; a 50 ms poll would take ~50.
    assert turns <= 4


def test_a_send_wakes_a_waiting_consumer(
    queue: RedisQueue, redis_space: RedisSpace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_wake, "IDLE_WAIT_SECONDS", 60.0)  # only a wake-up can end it
    consumer = queue.broker.consume(QUEUE_NAME, prefetch=1, timeout=1000)
    thread, out = in_thread(lambda: next_message(consumer))
    wait_until(lambda: waiting_in_redis(redis_space), 30, "the consumer to wait on Redis")
    queue.actor.send(42)
    thread.join(30)
    assert out == [42]


def test_a_send_between_the_empty_fetch_and_the_wait_is_not_missed(
    queue: RedisQueue, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_wake, "IDLE_WAIT_SECONDS", 60.0)
    broker = queue.broker
    real = broker._dispatch
    fetches: list[str] = []

    def dispatch(command: str) -> Callable[..., Any]:
        run = real(command)
        if command != "fetch":
            return run

        def fetch(*args: Any) -> Any:
            found = run(*args)
            fetches.append(args[0])
            if len(fetches) == 1:
                queue.actor.send(43)  # sent right after this consumer found nothing
            return found

        return fetch

    monkeypatch.setattr(broker, "_dispatch", dispatch)
    consumer = broker.consume(QUEUE_NAME, prefetch=1, timeout=1000)
    thread, out = in_thread(lambda: next_message(consumer))
    thread.join(30)
    assert out == [43]
    assert fetches == [QUEUE_NAME, QUEUE_NAME]  # the empty fetch, then the one the token woke


def test_a_send_whose_wake_up_fails_is_still_sent_and_fetched(
    queue: RedisQueue, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pipeline(*_args: Any, **_kwargs: Any) -> Any:
        raise redis.ConnectionError("Redis went away between the two commands")

    monkeypatch.setattr(queue.broker.client, "pipeline", no_pipeline)
    queue.actor.send(44)  # the message itself was stored: no error for the sender
    monkeypatch.undo()
    consumer = queue.broker.consume(QUEUE_NAME, prefetch=1, timeout=1000)
    assert next_message(consumer) == 44
