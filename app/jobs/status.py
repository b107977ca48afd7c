"""Live status across processes: workers publish on Redis, each web process listens once.

A worker publishes `<prefix>:submission:<id>` when a job starts and when its report is stored.
A web process keeps one pattern subscription and wakes the event streams waiting on that id.
A message can be missed (Redis restarted, the subscription was reconnecting), so a stream always
re-reads the database at least every `fallback_seconds`: a lost message costs a second, never a
hung stream. In the embedded mode the grading threads wake the streams in-process (LocalWatcher).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import FastAPI

if TYPE_CHECKING:  # Redis is loaded only where a deployment has it (issue 54: a start's import)
    import redis

log = logging.getLogger(__name__)
Wait = Callable[[], Awaitable[None]]
EMBEDDED_POLL_SECONDS = 0.05
# A stream is closed after this long and the browser reconnects: a web process being stopped
# waits for open responses, so an endless stream would hold up every restart.


def channel(prefix: str, submission_id: int | str) -> str:
    """The pub/sub channel of one submission."""
    return f"{prefix}:submission:{submission_id}"


class RedisPublisher:
    """Publishes status changes; a failure is logged, never raised (streams re-check the DB)."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client = client
        self._prefix = prefix

    def publish(self, submission_id: int, status: str) -> None:
        """PUBLISH one small JSON message."""
        import redis  # loaded already: this publisher was given a Redis client

        message = json.dumps({"id": submission_id, "status": status})
        try:
            self._client.publish(channel(self._prefix, submission_id), message)
        except redis.RedisError as exc:
            log.warning(
                "could not publish status of submission %s: %s",
                submission_id,
                exc,
                extra={"submission_id": submission_id},
            )


class Watcher(Protocol):
    """What an event stream needs: a way to wait until its submission may have changed."""

    async def start(self) -> None:
        """Begin listening (inside the running event loop)."""

    async def stop(self) -> None:
        """Stop listening."""

    def watch(self, submission_id: int) -> contextlib.AbstractAsyncContextManager[Wait]:
        """Register before the first database read; yields `wait()`."""


class PollingWatcher:
    """Fallback for an app started without its lifespan: re-read the database every 50 ms."""

    def __init__(self, interval: float = EMBEDDED_POLL_SECONDS) -> None:
        self.interval = interval

    async def start(self) -> None:
        """Nothing to start."""

    async def stop(self) -> None:
        """Nothing to stop."""

    @contextlib.asynccontextmanager
    async def watch(self, submission_id: int) -> AsyncIterator[Wait]:
        """Yield a fixed sleep."""

        async def wait() -> None:
            await asyncio.sleep(self.interval)

        yield wait


class LocalWatcher:
    """Embedded mode: grading threads in this process wake the streams directly.

    It is both the publisher (called from any thread) and the watcher (in the event loop);
    streams still re-read the database every `fallback_seconds`, so nothing can hang.
    """

    def __init__(self, fallback_seconds: float = 1.0) -> None:
        self.fallback_seconds = fallback_seconds
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        """Remember the loop the streams run in."""
        self._loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        """Forget the loop."""
        self._loop = None

    def publish(self, submission_id: int, status: str) -> None:
        """From a grading thread: wake the streams of this submission."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._wake, submission_id)

    def _wake(self, submission_id: int) -> None:
        for event in self._waiters.get(submission_id, ()):
            event.set()

    @contextlib.asynccontextmanager
    async def watch(self, submission_id: int) -> AsyncIterator[Wait]:
        """Yield `wait()`: returns when the submission changed or after the fallback interval."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        event = asyncio.Event()
        self._waiters.setdefault(submission_id, set()).add(event)

        async def wait() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), self.fallback_seconds)
            event.clear()

        try:
            yield wait
        finally:
            waiting = self._waiters.get(submission_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del self._waiters[submission_id]


class RedisWatcher:
    """One pattern subscription per web process, fanned out to the streams waiting on an id."""

    def __init__(self, url: str, prefix: str, fallback_seconds: float = 1.0) -> None:
        self._url = url
        self._prefix = prefix
        self.fallback_seconds = fallback_seconds
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()

    async def start(self) -> None:
        """Start the listening task."""
        self._task = asyncio.create_task(self._listen(), name="status-listener")

    async def stop(self) -> None:
        """Cancel the listening task."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    @contextlib.asynccontextmanager
    async def watch(self, submission_id: int) -> AsyncIterator[Wait]:
        """Yield `wait()`: returns on a message for this id or after the fallback interval."""
        event = asyncio.Event()
        self._waiters.setdefault(submission_id, set()).add(event)

        async def wait() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), self.fallback_seconds)
            event.clear()

        try:
            yield wait
        finally:
            waiting = self._waiters.get(submission_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del self._waiters[submission_id]

    def _wake(self, message: dict[str, Any]) -> None:
        name = message.get("channel")
        text = name.decode() if isinstance(name, bytes) else str(name)
        try:
            submission_id = int(text.rsplit(":", 1)[1])
        except (IndexError, ValueError):
            return
        for event in self._waiters.get(submission_id, ()):
            event.set()

    async def _listen(self) -> None:
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(self._url, socket_connect_timeout=3)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(channel(self._prefix, "*"))
                    self.connected.set()
                    while True:
                        message = await pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=5.0
                        )
                        if message is not None:
                            self._wake(message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: streams fall back to the database
                self.connected.clear()
                log.warning("status listener lost Redis (%s); retrying in 1 s", exc)
                await asyncio.sleep(1.0)
            finally:
                await client.aclose()


def watcher_of(app: FastAPI) -> Watcher:
    """The app's watcher; a polling one when the app was started without its lifespan."""
    found: Watcher | None = getattr(app.state, "status_watcher", None)
    return found if found is not None else PollingWatcher()


def watch(app: FastAPI, submission_id: int) -> contextlib.AbstractAsyncContextManager[Wait]:
    """For the SSE endpoint: `async with watch(app, id) as wait: ... await wait()`."""
    return watcher_of(app).watch(submission_id)
