"""What /healthz says: each dependency's own state, probed at most once a second.

`status` is "ok" when everything answers, "degraded" while grading is unavailable (pages and
submissions still work: they wait in the queue), and "unavailable" while the database, the queue
or the data directory's disk is away; only then is the answer 503, so a load balancer or a
container health check takes the process out of service exactly when it cannot serve.
The probe result is kept for PROBE_SECONDS: load tests poll /healthz several times a second.
"""

from __future__ import annotations

import shutil
import threading
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field
from sqlalchemy import text

from app.config import get_settings
from app.db import HEALTH_WAIT_SECONDS, get_engine
from app.grading.beacon import grader_status

if TYPE_CHECKING:  # Redis is loaded only where a deployment has it (issue 54: a start's import)
    import redis

PROBE_SECONDS = 1.0
DISK_LOW_BYTES = 1024 * 1024  # less free than this in APP_DATA_DIR: writes are failing
UNAVAILABLE = "unavailable"

_lock = threading.Lock()
_cached: tuple[float, object, dict[str, str]] | None = None  # (when, settings, answer)
_redis: tuple[str, redis.Redis] | None = None


class HealthOut(BaseModel):
    """Each dependency's state: "ok", or "unavailable: <why>" (the queue: "embedded" too)."""

    status: str = Field(description='"ok", "degraded" (grading unavailable) or "unavailable".')
    grader: str = Field(description='"ready", "starting" or "unavailable: <why>".')
    database: str = Field(description='"ok" or "unavailable: <why>".')
    queue: str = Field(description='"ok", "embedded" (no Redis) or "unavailable: <why>".')
    disk: str = Field(description='The data directory\'s disk: "ok" or "unavailable: <why>".')


def _why(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)  # SQLAlchemy's wrapper adds its own prefix and a link
    said = " ".join(str(orig if isinstance(orig, BaseException) else exc).split())
    return said[:200] or type(exc).__name__


def probe_database() -> str:
    """ "ok", or "unavailable: <why>" when a trivial query fails on a connection of its own."""
    try:
        with get_engine("health").connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # whatever the driver raises, the database is not answering
        return f"{UNAVAILABLE}: the database cannot be reached ({_why(exc)})"
    return "ok"


def _redis_client(url: str) -> redis.Redis:
    global _redis
    import redis

    if _redis is None or _redis[0] != url:
        wait = HEALTH_WAIT_SECONDS
        client = redis.Redis.from_url(url, socket_connect_timeout=wait, socket_timeout=wait)
        _redis = (url, client)
    return _redis[1]


def probe_queue() -> str:
    """ "ok" when Redis answers PING, "embedded" without Redis, else "unavailable: <why>"."""
    url = get_settings().redis_url
    if url is None:
        return "embedded"
    import redis

    try:
        _redis_client(url).ping()
    except redis.RedisError as exc:
        return f"{UNAVAILABLE}: the queue (Redis) cannot be reached ({_why(exc)})"
    return "ok"


def probe_disk() -> str:
    """ "ok", or "unavailable: ..." when the disk of APP_DATA_DIR is (nearly) full."""
    folder = get_settings().app_data_dir
    where = folder
    while not where.exists() and where != where.parent:  # not made yet: the disk it will be on
        where = where.parent
    try:
        free = shutil.disk_usage(where).free
    except OSError as exc:
        return f"{UNAVAILABLE}: the data directory {folder} cannot be read ({_why(exc)})"
    if free < DISK_LOW_BYTES:
        return f"{UNAVAILABLE}: the disk holding {folder} is full ({free // 1024} KiB free)"
    return "ok"


def _probe() -> dict[str, str]:
    found = {
        "database": probe_database(),
        "queue": probe_queue(),
        "disk": probe_disk(),
        "grader": grader_status(),
    }
    away = any(found[name].startswith(UNAVAILABLE) for name in ("database", "queue", "disk"))
    grading = not found["grader"].startswith(UNAVAILABLE)
    status = UNAVAILABLE if away else "ok" if grading else "degraded"
    return {"status": status, **found}


def health() -> dict[str, Any]:
    """Each dependency's state and the overall status, probed at most once per PROBE_SECONDS."""
    global _cached
    settings = get_settings()  # a new object whenever the settings changed (tests)
    with _lock:
        fresh = _cached is not None and _cached[1] is settings
        if not fresh or _cached is None or time.monotonic() - _cached[0] >= PROBE_SECONDS:
            _cached = (time.monotonic(), settings, _probe())
        return dict(_cached[2])


def forget() -> None:
    """Probe afresh on the next call (tests, and after settings changed)."""
    global _cached, _redis
    with _lock:
        _cached = None
        _redis = None
