"""`python -m app worker`: a warm grader pool taking jobs from Redis until SIGTERM drains it."""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
from types import FrameType

import redis

from app.config import get_settings
from app.grading.service import get_grader, shutdown_grader
from app.jobs.beacon import live_workers
from app.jobs.logs import configure_logging
from app.jobs.redis_queue import redis_client
from app.jobs.runtime import JobRuntime

log = logging.getLogger(__name__)
DRAIN_SECONDS = 60.0  # compose's stop_grace_period is longer, so a drain is never cut short


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def run_worker(*, concurrency: int | None) -> int:
    """Grade until SIGTERM/SIGINT, then finish the running jobs and give the rest back."""
    from app.migrate import is_up_to_date

    settings = get_settings()
    if settings.redis_url is None:
        return _fail(
            "the worker takes its jobs from Redis: set REDIS_URL=redis://HOST:6379/0 "
            "(without REDIS_URL, `python -m app serve` grades in its own process)"
        )
    try:
        redis_client(settings.redis_url).ping()
    except redis.RedisError as exc:
        return _fail(f"cannot reach Redis at REDIS_URL: {exc}")
    if not is_up_to_date():
        return _fail("the database schema is not up to date: run `python -m app migrate` first")
    configure_logging(settings.log_format)
    stopping = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s: draining", signal.Signals(signum).name)
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    get_grader()  # start filling the warm pool before taking jobs
    runtime = JobRuntime(settings, grade=True, concurrency=concurrency, role="worker")
    runtime.start()
    log.info(
        "worker ready: %d threads, pools %s",
        runtime.concurrency,
        settings.pool_sizes,
        extra={"event": "ready", "concurrency": runtime.concurrency},
    )
    stopping.wait()
    runtime.stop(DRAIN_SECONDS)
    shutdown_grader()
    log.info("worker stopped", extra={"event": "stopped"})
    return 0


def check_health() -> int:
    """Exit 0 when a worker on this host announced itself in the last few seconds."""
    settings = get_settings()
    if settings.redis_url is None:
        return _fail("REDIS_URL is not set")
    host = socket.gethostname()
    try:
        workers = live_workers(redis_client(settings.redis_url), settings.redis_prefix)
    except redis.RedisError as exc:
        return _fail(f"cannot reach Redis: {exc}")
    mine = [w for w in workers if w.get("host") == host and w.get("role") == "worker"]
    if not mine:
        return _fail(f"no worker on {host} announced itself recently")
    print(f"ok: {len(mine)} worker(s) on {host}")
    return 0
