"""Wires queue, leases, reaper and status for one process, in either mode, from the settings.

The web app (lifespan) and `python -m app worker` both build a `JobRuntime`; the only
differences are whether this process runs jobs and which queue carries them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.config import Settings
from app.grading.lanes import lane_of
from app.grading.reaper import BACKGROUND_KINDS, Reaper
from app.grading.runner import Held, Publisher, run_job
from app.grading.tasks import run_task
from app.jobs import live
from app.jobs.base import GRADE, JobQueue, JobRef
from app.jobs.embedded import EmbeddedQueue
from app.jobs.lanes import LANES
from app.jobs.status import LocalWatcher, Watcher

if TYPE_CHECKING:  # Redis is loaded only where a deployment has it (issue 54: a start's import)
    from app.grading.beacon import Beacon

log = logging.getLogger(__name__)


class JobRuntime:
    """Everything job-related one process runs; `start` and `stop` bracket its life."""

    def __init__(
        self,
        settings: Settings,
        *,
        grade: bool,
        concurrency: int | None = None,
        role: str = "web",
        lanes: tuple[str, ...] = LANES,
    ) -> None:
        self.settings = settings
        self.lanes = lanes
        self.grade = grade
        self.concurrency = concurrency or settings.grading_workers
        self.held = Held(settings.lease_seconds)
        self.beacon: Beacon | None = None
        self.queue: JobQueue
        self.publisher: Publisher
        self.watcher: Watcher
        if settings.redis_url is not None:
            from app.grading.beacon import Beacon
            from app.jobs.redis_queue import RedisQueue
            from app.jobs.status import RedisPublisher, RedisWatcher

            redis_queue = RedisQueue(
                url=settings.redis_url,
                prefix=settings.redis_prefix,
                heartbeat_seconds=settings.lease_seconds,
                lane_of=lane_of,
            )
            self.queue = redis_queue
            live.use_redis(redis_queue.client, settings.redis_prefix)  # workers' experiments
            self.publisher = RedisPublisher(redis_queue.client, settings.redis_prefix)
            self.watcher = RedisWatcher(settings.redis_url, settings.redis_prefix)
            if grade:
                self.beacon = Beacon(
                    redis_queue.client,
                    settings.redis_prefix,
                    held=self.held,
                    concurrency=self.concurrency,
                    role=role,
                )
        else:
            self.queue = EmbeddedQueue(lane_of)
            local = LocalWatcher()  # grading threads wake this process's streams directly
            self.publisher = local
            self.watcher = local
        self.reaper = Reaper(
            self.queue,
            self.publisher,
            interval=settings.reaper_interval_seconds,
            max_attempts=settings.max_job_attempts,
            lease_seconds=settings.lease_seconds,
            background=tuple(
                k for k in BACKGROUND_KINDS if settings.lti_outbox_worker or k != "lms_post"
            ),
        )

    def handle(self, job: JobRef) -> object:
        """The job function both queues call: a grade, or a typed job of the `jobs` table."""
        if job.kind != GRADE:
            done = run_task(
                job.id,
                held=self.held,
                max_attempts=self.settings.max_job_attempts,
                enqueue=self.queue.enqueue,
            )
            if done == "retry":  # sent again now: a record of the last send may outlive it
                self.queue.enqueue(job)
            return done
        return run_job(
            job.id,
            held=self.held,
            publisher=self.publisher,
            max_attempts=self.settings.max_job_attempts,
        )

    def start(self, *, before_consuming: Callable[[], object] | None = None) -> None:
        """Recover what a previous run left, start grading threads (if any) and the reaper.

        `before_consuming` runs after this process announced itself and before it takes jobs
        (a worker waits there for its warm pool while the others grade).
        """
        if not self.settings.distributed:
            # The in-memory queue starts empty: every queued row must be sent again, now.
            self.reaper.run_once(force=True, grace=0)
        if self.grade:
            self.held.start()
            if self.beacon is not None:
                self.beacon.start()
            if before_consuming is not None:
                before_consuming()
            self.queue.start_consumers(self.concurrency, self.handle, self.lanes)
            if self.beacon is not None:
                self.beacon.taking()
        elif not self.settings.distributed:
            log.warning("SERVE_GRADES is off and REDIS_URL is unset: nothing will grade jobs")
        self.reaper.start()

    def stop(self, drain_seconds: float) -> None:
        """Stop the reaper, drain the running jobs, then stop renewing leases."""
        self.reaper.stop()
        if self.beacon is not None:
            self.beacon.stop()
        self.queue.stop(drain_seconds)
        self.held.stop()
