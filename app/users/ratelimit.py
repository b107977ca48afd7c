"""Counting failed logins and sign-ups, behind a small interface a Redis store can replace."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Annotated, Protocol

from fastapi import Depends, Request

from app.config import get_settings

MAX_KEYS = 50_000


class FailureLimiter(Protocol):
    """Blocks a key (an IP or an email) after too many recent failures."""

    def retry_after(self, keys: Iterable[str]) -> float:
        """Seconds until every key may try again; 0 when none is blocked."""
        ...

    def record_failure(self, keys: Iterable[str]) -> None:
        """Count one failure against each key."""
        ...

    def reset(self, key: str) -> None:
        """Forget a key's failures (after a success)."""
        ...


class MemoryFailureLimiter:
    """Sliding-window counts kept in this process; enough for the single-machine mode."""

    def __init__(
        self,
        *,
        max_failures: int,
        window_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_failures = max_failures
        self.window = window_seconds
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._failures.get(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def retry_after(self, keys: Iterable[str]) -> float:
        """Seconds until every key may try again; 0 when none is blocked."""
        now = self._clock()
        wait = 0.0
        with self._lock:
            for key in keys:
                times = self._recent(key, now)
                if len(times) >= self.max_failures:
                    # Blocked until enough old failures leave the window.
                    release = times[len(times) - self.max_failures] + self.window
                    wait = max(wait, release - now)
        return wait

    def record_failure(self, keys: Iterable[str]) -> None:
        """Count one failure against each key."""
        now = self._clock()
        with self._lock:
            if len(self._failures) > MAX_KEYS:
                self._prune(now)
            for key in keys:
                times = self._recent(key, now)
                times.append(now)
                self._failures[key] = times

    def reset(self, key: str) -> None:
        """Forget a key's failures (after a success)."""
        with self._lock:
            self._failures.pop(key, None)

    def _prune(self, now: float) -> None:
        for key in list(self._failures):
            if not self._recent(key, now):
                del self._failures[key]


def minutes_text(seconds: float) -> str:
    """'1 minute' / 'N minutes', rounded up so the student never retries too early."""
    minutes = max(1, math.ceil(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def auth_limiter() -> FailureLimiter:
    """A new limiter for logins and sign-ups, from the settings (kept in this process's memory).

    `create_app` makes one per app and keeps it as `app.state.auth_limiter`.
    """
    settings = get_settings()
    return MemoryFailureLimiter(
        max_failures=settings.auth_max_failures,
        window_seconds=settings.auth_window_seconds,
    )


async def get_auth_limiter(request: Request) -> FailureLimiter:
    """The app's limiter for logins and sign-ups, set when the app was built (app/main.py).

    Async: it does no I/O, so it costs the request no trip to the thread pool (issue 23).
    """
    limiter: FailureLimiter = request.app.state.auth_limiter
    return limiter


AuthLimiterDep = Annotated[FailureLimiter, Depends(get_auth_limiter)]
