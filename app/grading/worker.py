"""`python -m app worker`: a warm grader pool taking jobs from Redis until SIGTERM drains it."""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType

import redis

from app.config import get_settings
from app.grading.beacon import live_workers, worker_id
from app.grading.runtime import JobRuntime
from app.grading.service import get_grader, shutdown_grader
from app.jobs.logs import configure_logging
from app.jobs.redis_queue import redis_client

log = logging.getLogger(__name__)
DRAIN_SECONDS = 60.0  # compose's stop_grace_period is longer, so a drain is never cut short
WARM_WAIT_S = 120.0  # a joining worker waits at most this long for its pool before taking jobs
WARM_POLL_S = 0.5


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def run_worker(*, concurrency: int | None, lanes: tuple[str, ...] = ("grading",)) -> int:
    """Grade until SIGTERM/SIGINT, then finish the running jobs and give the rest back."""
    from app.migrate import schema_problem

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
    problem = schema_problem()
    if problem:
        return _fail(problem)
    configure_logging(settings.log_format)
    stopping = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s: draining", signal.Signals(signum).name)
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    grader = get_grader()  # start filling the warm pool before taking jobs
    runtime = JobRuntime(settings, grade=True, concurrency=concurrency, role="worker", lanes=lanes)
    others = redis_client(settings.redis_url)
    runtime.start(
        before_consuming=lambda: wait_until_warm(
            warm=grader.pool.filled,
            others_ready=lambda: _others_ready(others, settings.redis_prefix),
            stopping=stopping,
        )
    )
    log.info(
        "worker ready: %d threads, pools %s, lanes %s",
        runtime.concurrency,
        settings.pool_sizes,
        ",".join(lanes),
        extra={"event": "ready", "concurrency": runtime.concurrency},
    )
    stopping.wait()
    runtime.stop(DRAIN_SECONDS)
    shutdown_grader()
    log.info("worker stopped", extra={"event": "stopped"})
    return 0


def wait_until_warm(
    *,
    warm: Callable[[], bool],
    others_ready: Callable[[], bool],
    stopping: threading.Event,
    limit_s: float = WARM_WAIT_S,
) -> float:
    """Take jobs once the pool is warm, or at once when no other worker can grade; seconds waited.

    A job taken by a cold worker pays an interpreter start (seconds; a Flax one, ten) on the
    student's clock, while a warm worker would answer in milliseconds. So a worker that joins a
    running deployment (a restart after a crash, a scale-up) lets the others grade until its
    own pool is up, at most `limit_s`. The only worker, or one whose peers are all gone, starts
    at once: a slow verdict beats none.
    """
    started = time.monotonic()
    while not stopping.is_set() and time.monotonic() - started < limit_s:
        if warm():
            break
        try:
            if not others_ready():
                break
        except redis.RedisError:
            break
        stopping.wait(WARM_POLL_S)
    waited = time.monotonic() - started
    log.info("taking jobs after %.1f s of warm-up", waited, extra={"event": "consuming"})
    return waited


def _others_ready(client: redis.Redis, prefix: str) -> bool:
    """Another worker takes jobs with a ready grader (announced in the last few seconds)."""
    me = worker_id()
    return any(
        w.get("id") != me and w.get("taking_jobs") and w.get("grader") == "ready"
        for w in live_workers(client, prefix)
    )


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
