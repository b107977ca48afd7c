"""Dramatiq's Redis broker with a wake-up: an idle consumer waits on Redis instead of polling.

Why: Dramatiq's consumer fetches, finds nothing, sleeps up to `worker_timeout` and fetches
again. A short timeout (a job must not wait long to be picked up) made every idle worker wake
about twenty times a second per queue: 3.5% of a core per idle worker and 1.8% of Redis, taken
from the web tier while a class loads its pages (docs/benchmarks.md, seventh round). Here every
send also pushes a token on the queue's wake-up list, and a consumer that found nothing waits on
that list (BLPOP) for up to `IDLE_WAIT_SECONDS`: a new job is fetched as soon as it is sent, and
an idle worker asks Redis once a second.

No wake-up is lost: the token is pushed after the message is stored, so a consumer that fetched
just before the send finds the token when it starts to wait. A token nobody waited for (every
consumer busy) only causes one empty fetch later; the list is trimmed so such tokens stay few.
Messages that Dramatiq's maintenance moves back from a dead worker have no token: an idle
consumer fetches them within `IDLE_WAIT_SECONDS`.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from dramatiq import Message
from dramatiq.brokers.redis import RedisBroker, _RedisConsumer
from dramatiq.errors import ConnectionClosed

log = logging.getLogger(__name__)
IDLE_WAIT_SECONDS = 1.0  # an idle consumer's longest wait on Redis; also the longest stop delay
BACKOFF_MS = 50  # after an empty wait: the consumer's own pause before it asks again
WAKE_TOKENS_KEPT = 16  # tokens nobody took yet; more would only cause more empty fetches


def wake_key(namespace: str, queue_name: str) -> str:
    """The list an idle consumer of `queue_name` waits on."""
    return f"{namespace}:{queue_name}.wake"


class WakingRedisBroker(RedisBroker):
    """A RedisBroker whose sends wake an idle consumer and whose consumers wait, not poll."""

    def enqueue(self, message: Message[Any], *, delay: int | None = None) -> Message[Any]:
        """Store the message (Dramatiq's own way), then wake a consumer of its queue."""
        sent = super().enqueue(message, delay=delay)  # a delayed one goes to the delay queue
        key = wake_key(self.namespace, sent.queue_name)
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.lpush(key, b"1")
            pipe.ltrim(key, 0, WAKE_TOKENS_KEPT - 1)
            pipe.execute()
        except redis.RedisError as exc:  # stored already: a consumer finds it within its wait
            log.warning("queued message %s without a wake-up (%s)", sent.message_id, exc)
        return sent

    def consume(self, queue_name: str, prefetch: int = 1, timeout: int = 5000) -> _RedisConsumer:
        """A consumer whose pause after an empty wait stays short whatever the worker's timeout.

        The worker's timeout also paces its threads' idle wake-ups, which can be long now.
        """
        return _RedisConsumer(  # type: ignore[no-untyped-call]
            self, queue_name, prefetch, min(timeout, BACKOFF_MS)
        )

    def do_fetch(self, queue_name: str, count: int) -> list[bytes]:
        """Up to `count` messages; when there are none, wait for a wake-up and try once more."""
        fetch = self._dispatch("fetch")  # type: ignore[no-untyped-call]
        found: list[bytes] = fetch(queue_name, count)
        if found:
            return found
        try:
            woken = self.client.blpop([wake_key(self.namespace, queue_name)], IDLE_WAIT_SECONDS)
        except redis.ConnectionError as exc:
            raise ConnectionClosed(exc) from None  # type: ignore[no-untyped-call]
        if woken is None:
            return []
        again: list[bytes] = fetch(queue_name, count)
        return again
