"""How much the web tier takes on at once, and what it answers when it cannot take more."""

from __future__ import annotations

import asyncio
import json
import resource
from collections import deque

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def raise_open_files_limit() -> int:
    """Lift the soft open-files limit to the hard one: each waiting student holds a socket."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            return soft
        return wanted
    return soft


class Admission:
    """A first-come, first-served count of requests being served, kept in the event loop.

    Why in the event loop: a waiting request then holds no thread and no database connection,
    only its socket; and the ones admitted finish in the order they came, instead of every
    request advancing one thread trip at a time and all finishing late together.
    """

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.busy = 0
        self.shed = 0  # requests answered 503 since start
        self.admitted = 0  # requests let in since start
        self._waiters: deque[asyncio.Future[bool]] = deque()
        self._waiting = 0  # futures in _waiters still pending

    @property
    def waiting(self) -> int:
        """Requests queued for a slot right now."""
        return self._waiting

    async def acquire(self, timeout: float) -> bool:
        """Take a slot, waiting at most `timeout` seconds; False when none came in time."""
        if self.busy < self.slots and not self._waiting:
            self.busy += 1
            return True
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[bool] = loop.create_future()
        self._waiters.append(fut)
        self._waiting += 1
        timer = loop.call_later(timeout, self._expire, fut)
        try:
            return await fut
        except asyncio.CancelledError:
            if not fut.done() or fut.cancelled():
                self._waiting -= 1  # left the line; release() skips its entry
                fut.cancel()
            elif fut.result():
                self.release()  # granted just as the client went away: pass it on
            raise
        finally:
            timer.cancel()

    def _expire(self, fut: asyncio.Future[bool]) -> None:
        if not fut.done():
            self._waiting -= 1
            fut.set_result(False)

    def release(self) -> None:
        """Hand the slot to the longest waiter, or free it."""
        while self._waiters:
            fut = self._waiters.popleft()
            if not fut.done():
                self._waiting -= 1
                fut.set_result(True)
                return
        self.busy -= 1


BUSY_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Busy right now</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/style.css"></head>
<body><main class="error-page"><h1>The course is busy right now</h1>
<p>Many students opened it at the same moment, and this page could not be prepared in time.
Nothing you wrote is lost. Reload the page in {retry} seconds.</p></main></body></html>
"""
BUSY_DETAIL = "The server is busy: too many requests at once. Try again in {retry} seconds."


def _wants_html(scope: Scope) -> bool:
    if scope.get("path", "").startswith("/api/"):
        return False
    for key, value in scope.get("headers", []):
        if key == b"accept":
            return b"text/html" in value
    return False


async def send_busy(scope: Scope, send: Send, retry_after: int) -> None:
    """Answer 503 with Retry-After: a short page for people, JSON for scripts."""
    if _wants_html(scope):
        body = BUSY_PAGE.format(retry=retry_after).encode()
        kind = b"text/html; charset=utf-8"
    else:
        body = json.dumps({"detail": BUSY_DETAIL.format(retry=retry_after)}).encode()
        kind = b"application/json"
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", kind),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(retry_after).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class AdmissionMiddleware:
    """Serve at most `slots` requests at once; a request that waits too long gets 503.

    A slot is given back as soon as the response starts, so a long event stream or a slow
    reader does not keep one. Health checks and static files never wait.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        admission: Admission,
        wait_seconds: float,
        max_waiting: int,
        retry_after: int,
        exempt: tuple[str, ...] = ("/healthz", "/static/"),
    ) -> None:
        self.app = app
        self.admission = admission
        self.wait_seconds = wait_seconds
        self.max_waiting = max_waiting
        self.retry_after = retry_after
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(self.exempt):
            await self.app(scope, receive, send)
            return
        admission = self.admission
        full = admission.busy >= admission.slots and admission.waiting >= self.max_waiting
        if full or not await admission.acquire(self.wait_seconds):
            admission.shed += 1
            await send_busy(scope, send, self.retry_after)
            return
        admission.admitted += 1
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                admission.release()

        async def send_and_release(message: Message) -> None:
            if message["type"] == "http.response.start":
                give_back()
            await send(message)

        try:
            await self.app(scope, receive, send_and_release)
        finally:
            give_back()
