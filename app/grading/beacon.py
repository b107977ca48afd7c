"""Each grading process announces itself in Redis with a short expiry: alive, busy, pool sizes.

The web process's /metrics adds these up, and `python -m app worker --health` checks that a
worker on this host announced itself recently (the container health check).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

from app.grading.runner import Held
from app.grading.service import current_grader

if TYPE_CHECKING:  # Redis is loaded only where a deployment has it (issue 54: a start's import)
    import redis

log = logging.getLogger(__name__)
BEAT_SECONDS = 2.0  # a worker joining after a crash trusts a dead peer at most TTL_SECONDS
TTL_SECONDS = 3 * BEAT_SECONDS


def worker_id() -> str:
    """host:pid, unique across the machines of a deployment."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _key(prefix: str, ident: str) -> str:
    return f"{prefix}:workers:{ident}"


class Beacon:
    """Writes this process's record every few seconds."""

    def __init__(
        self, client: redis.Redis, prefix: str, *, held: Held, concurrency: int, role: str
    ) -> None:
        import redis  # loaded already, with this beacon's client

        self.client = client
        self._errors: type[Exception] = redis.RedisError
        self.prefix = prefix
        self.held = held
        self.concurrency = concurrency
        self.role = role
        self.ident = worker_id()
        self.started = time.time()
        self.taking_jobs = False  # set once this process consumes (after its warm-up)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def record(self) -> dict[str, Any]:
        """What this process tells the others about itself."""
        grader = current_grader()
        return {
            "id": self.ident,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "role": self.role,
            "concurrency": self.concurrency,
            "in_flight": self.held.ids(),
            "taking_jobs": self.taking_jobs,
            "pool_ready": grader.pool.sizes() if grader else {},
            "grader": grader.status() if grader else "starting",
            "pool_target": dict(grader.pool.settings.sizes) if grader else {},
            "started": self.started,
            "seen": time.time(),
        }

    def beat(self) -> None:
        """Write the record once."""
        self.client.set(
            _key(self.prefix, self.ident), json.dumps(self.record()), ex=int(TTL_SECONDS)
        )

    def taking(self) -> None:
        """Say at once that this process now takes jobs (peers may be waiting to hear it)."""
        self.taking_jobs = True
        try:
            self.beat()
        except self._errors as exc:
            log.warning("could not announce this worker: %s", exc)

    def start(self) -> None:
        """Beat now and then every few seconds."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="beacon")
        self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                self.beat()
            except self._errors as exc:
                log.warning("could not announce this worker: %s", exc)
            if self._stop.wait(BEAT_SECONDS):
                return

    def stop(self) -> None:
        """Stop beating and remove the record (a drained worker is gone at once)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with contextlib.suppress(self._errors):
            self.client.delete(_key(self.prefix, self.ident))


def live_workers(client: redis.Redis, prefix: str) -> list[dict[str, Any]]:
    """Records of the grading processes seen in the last few seconds."""
    found = []
    for key in client.scan_iter(match=f"{prefix}:workers:*", count=200):
        raw = client.get(key)
        if raw is None:
            continue
        try:
            found.append(json.loads(raw))
        except ValueError:
            continue
    return found


def grader_status() -> str:
    """ "ready", "starting" or "unavailable: <why>": this process's grader, or the workers'.

    In the scale-out mode the web process grades nothing: grading is ready when some worker
    announced a ready grader in the last few seconds.
    """
    from app.config import get_settings

    settings = get_settings()
    if not settings.redis_url:
        grader = current_grader()
        return grader.status() if grader is not None else "starting"
    import redis

    try:
        from app.jobs.redis_queue import redis_client

        workers = live_workers(redis_client(settings.redis_url), settings.redis_prefix)
    except redis.RedisError as exc:
        return f"unavailable: the queue (Redis) cannot be reached ({exc})"
    states = [str(w.get("grader", "starting")) for w in workers]
    if "ready" in states:
        return "ready"
    if not states:
        return "unavailable: no grading worker is running (start one: python -m app worker)"
    return next((s for s in states if s.startswith("unavailable")), "starting")
