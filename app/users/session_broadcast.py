"""Tells every web process, through Redis, that a session or an account changed.

Why: with several web processes (scale-out), each one remembers sessions for a few seconds
(session_cache); a logout or a role change made in one process must reach the others' memory
at once, not after the entry ages out. A process that committed such a change publishes one
message; each web process listens and forgets what it remembered. While a process is not
subscribed (starting, Redis away) it remembers nothing, so a missed message can never leave a
stale entry behind: at worst the cache is off and every page reads the session again.
"""

from __future__ import annotations

import logging
import select
import socket
import threading
import time
from collections.abc import Callable

import redis

from app.jobs.redis_queue import redis_client

log = logging.getLogger(__name__)
RETRY_SECONDS = 1.0
ROUND_TRIP_SECONDS = 0.25  # past this a request reads its session instead of waiting


def channel(prefix: str) -> str:
    """The one channel every web process of a deployment listens on."""
    return f"{prefix}:sessions:changed"


class Publisher:
    """Publishes "something changed"; a failure is logged, never raised into the write."""

    def __init__(self) -> None:
        self._clients: dict[str, redis.Redis] = {}
        self._lock = threading.Lock()

    def publish(self, url: str, prefix: str) -> None:
        """One PUBLISH to the deployment's channel."""
        with self._lock:
            client = self._clients.get(url)
            if client is None:
                client = self._clients[url] = redis_client(url)
        try:
            client.publish(channel(prefix), b"1")
        except redis.RedisError as exc:
            # Other processes keep their entries for at most session_cache.SECONDS.
            log.warning("could not tell other web processes that a session changed: %s", exc)


class Listener:
    """A thread subscribed to the channel; `settled()` only while it surely has every message.

    Why `settled()` reads too: a message may be in flight, or the thread that takes it may not
    run before the very next request does (a busy machine), so a request makes sure itself.
    A lock keeps the subscription's connection to one thread at a time; the listener waits for
    its socket outside the lock.
    """

    def __init__(self, url: str, prefix: str, on_change: Callable[[], None]) -> None:
        self._url = url
        self._channel = channel(prefix)
        self._on_change = on_change
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._taking = threading.Lock()
        self._subscription: tuple[redis.client.PubSub, socket.socket] | None = None
        self._pings = 0
        self.live = False

    def start(self) -> None:
        """Subscribe in the background; `live` turns true once Redis confirmed it."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="session-listener", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Unsubscribe and wait for the thread (it checks every second)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None

    def settled(self) -> bool:
        """Subscribed, and every message published before this call handled: reads may be kept.

        Why a round trip: a publish that has returned in another process may still be on its way
        to this socket. Redis answers commands in order, so the reply to a PING sent now comes
        after every message it queued for us before, and handling up to that reply is enough.
        """
        if not self.live or not self._taking.acquire(blocking=False):
            return False  # not subscribed, or the listener is taking messages this moment
        try:
            if self._subscription is None:
                return False
            return self._round_trip(self._subscription[0])
        except (redis.RedisError, OSError, ValueError):
            return False  # the listener meets the same error and starts over
        finally:
            self._taking.release()

    def _round_trip(self, pubsub: redis.client.PubSub) -> bool:
        """PING with a fresh token and handle every message up to its answer (lock held)."""
        self._pings += 1
        token = f"settled-{self._pings}".encode()
        pubsub.ping(token.decode())
        deadline = time.monotonic() + ROUND_TRIP_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            message = pubsub.get_message(timeout=left)
            if message is None:
                continue
            if message["type"] == "pong" and message["data"] == token:
                return True
            self._handle(message)
        return False  # Redis is slow: read the session this time (a late answer is ignored)

    def _run(self) -> None:
        while not self._stop.is_set():
            client = redis_client(self._url)
            pubsub = client.pubsub()  # type: ignore[no-untyped-call]
            try:
                self._listen(pubsub)
            except (redis.RedisError, OSError) as exc:
                log.warning("session listener lost Redis (%s); sessions are read every time", exc)
            finally:
                with self._taking:
                    self._subscription = None
                    self.live = False
                self._on_change()  # messages may have been missed: keep nothing from before
                pubsub.close()
                client.close()
            self._stop.wait(RETRY_SECONDS)

    def _listen(self, pubsub: redis.client.PubSub) -> None:
        with self._taking:
            pubsub.subscribe(self._channel)
            # The subscription's socket (redis-py has no public name for it): only polled.
            sock = getattr(pubsub.connection, "_sock", None)
            if sock is None:
                raise redis.ConnectionError("the subscription has no socket")
            self._subscription = pubsub, sock
        while not self._stop.is_set():
            select.select([sock], [], [], 1.0)
            with self._taking:
                self._take(pubsub)

    def _take(self, pubsub: redis.client.PubSub) -> None:
        """Handle every message already arrived (lock held)."""
        while (message := pubsub.get_message(timeout=0.0)) is not None:
            self._handle(message)

    def _handle(self, message: dict[str, object]) -> None:
        """A subscription confirmed or a change heard: forget what was read before it."""
        if message["type"] == "subscribe" and not self.live:
            # From here on every message reaches us; forget what was read before it.
            self._on_change()
            self.live = True
        elif message["type"] == "message":
            self._on_change()
