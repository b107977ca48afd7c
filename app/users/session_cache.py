"""Who a session cookie belongs to, remembered for a few seconds by each web process.

Why: looking the session up was a fifth of a page's CPU and one more transaction on every
request (issue 23), though a student's five pages in a row ask the same thing.

Why it stays correct: every write to `users` or `web_sessions` made in a process (logout, a
role or password change, an account deleted) forgets everything, once when the statement runs
and again when its connection goes back to the pool after the commit. A lookup that raced with
such a write is not kept: each clearing starts a new generation, and an answer is stored only
under the generation it began in. With Redis (scale-out, several web processes) the commit is
also published, and every web process forgets on receipt (session_broadcast); a process not
subscribed at that moment does not cache at all. Without Redis only the embedded mode caches,
where one web process serves (`serve` refuses `--workers` there); writes from a process that
cannot publish (a CLI command without Redis) are seen within `SECONDS`.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from dataclasses import dataclass
from functools import cache as _once
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, event
from sqlalchemy.pool import Pool

from app.config import get_settings

if TYPE_CHECKING:  # Redis is loaded only where a deployment has it (issue 54: a start's import)
    from app.users.session_broadcast import Listener, Publisher

SECONDS = 5.0
MAX_ENTRIES = 10_000  # a class is a few hundred; past this the cache starts over
_AUTH_WRITE = re.compile(r'\s*(UPDATE|DELETE\s+FROM)\s+"?(users|web_sessions)\b', re.IGNORECASE)
_CHANGED_KEY = "changed_sessions_or_users"


@dataclass(frozen=True)
class CachedSession:
    """A user's column values and their session's expiry, as read at `read_at` (monotonic)."""

    user: dict[str, Any]
    expires_at: dt.datetime
    read_at: float


class SessionCache:
    """Token hash to the session's user, for `seconds`; cleared by any change to either table."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._entries: dict[str, CachedSession] = {}
        self._lock = threading.Lock()
        self.generation = 0

    def get(self, token_hash: str) -> CachedSession | None:
        """The entry while it is fresh, else None."""
        found = self._entries.get(token_hash)
        if found is None or time.monotonic() - found.read_at > self._seconds:
            return None
        return found

    def put(self, token_hash: str, entry: CachedSession, generation: int) -> None:
        """Keep an answer read in `generation`, unless something changed since it began."""
        with self._lock:
            if generation != self.generation:
                return
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[token_hash] = entry

    def clear(self) -> None:
        """Forget everything and start a new generation."""
        with self._lock:
            self.generation += 1
            self._entries.clear()


cache = SessionCache(SECONDS)
_listener: Listener | None = None


@_once
def _publisher() -> Publisher:
    """The one publisher of this process, made at its first change (only with Redis)."""
    from app.users.session_broadcast import Publisher

    return Publisher()


def enabled() -> bool:
    """In the one embedded web process, or where this process hears every change (Redis)."""
    settings = get_settings()
    if not settings.session_cache:
        return False
    if settings.distributed:
        return _listener is not None and _listener.settled()
    return settings.grades_in_web


def start_listening() -> None:
    """A web process with Redis: subscribe, and cache once subscribed (until `stop_listening`)."""
    global _listener
    settings = get_settings()
    if not settings.session_cache or settings.redis_url is None or _listener is not None:
        return
    from app.users.session_broadcast import Listener

    _listener = Listener(settings.redis_url, settings.redis_prefix, cache.clear)
    _listener.start()


def stop_listening() -> None:
    """Stop caching and unsubscribe."""
    global _listener
    listener, _listener = _listener, None
    if listener is not None:
        listener.stop()
    cache.clear()


def _on_statement(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    if _AUTH_WRITE.match(statement):
        conn.info[_CHANGED_KEY] = True
        cache.clear()


def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
    if record is not None and record.info.pop(_CHANGED_KEY, False):
        cache.clear()  # committed (or rolled back) now: a lookup from here on reads the new rows
        settings = get_settings()
        if settings.redis_url is not None:  # and the other web processes, wherever they run
            _publisher().publish(settings.redis_url, settings.redis_prefix)


def _on_invalidate(_dbapi_connection: Any, record: Any, *_args: Any) -> None:
    _on_checkin(_dbapi_connection, record)


# On the classes, so every engine of the process (web, background, tests') is watched.
event.listen(Engine, "before_cursor_execute", _on_statement)
event.listen(Pool, "checkin", _on_checkin)
event.listen(Pool, "invalidate", _on_invalidate)
