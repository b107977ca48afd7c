"""Recovery from the database: expired leases, rows whose message was lost, stale records.

One pass, at most once per interval across the deployment (a lock shared through the queue):
1. running rows whose lease lapsed (their worker died: no renewal for a lease length, timed on
   this process's monotonic clock, app/grading/lease_watch.py) go back to queued and are sent again;
   after `max_attempts` runs they end as internal_error instead, so a job that kills its worker
   cannot loop for ever;
2. queued rows older than a grace period that have no message waiting (Redis restarted or
   flushed, the web process died between commit and send) are sent again;
3. records of sent messages whose rows no longer wait are swept;
4. the background tasks plugged into `hooks.BACKGROUND` run (exam attempts past their deadline
   are handed in, so nothing waits for a page read).
Everything it sends may also arrive by another path; `leases.claim` makes the extra run a no-op.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from dataclasses import dataclass

from app.db import session_factory
from app.grading import leases
from app.grading.lease_watch import LeaseWatch
from app.grading.runner import Publisher
from app.hooks import run_background
from app.jobs.base import JobQueue
from app.models_base import utcnow

log = logging.getLogger(__name__)
STALE_SECONDS = 15 * 60  # a message waiting this long is assumed lost (dead-lettered) and resent


@dataclass
class PassResult:
    """What one pass did (logged, and checked by tests)."""

    requeued: list[int]
    gave_up: list[int]
    resent: list[int]
    swept: int


class Reaper:
    """Runs `run_once` every `interval` seconds in a background thread."""

    def __init__(
        self,
        queue: JobQueue,
        publisher: Publisher,
        *,
        interval: float,
        max_attempts: int,
        lease_seconds: float,
        grace_seconds: float | None = None,
    ) -> None:
        self.queue = queue
        self.watch = LeaseWatch(lease_seconds=lease_seconds)  # lapsed leases, on a steady clock
        self.publisher = publisher
        self.interval = interval
        self.max_attempts = max_attempts
        self.grace_seconds = grace_seconds if grace_seconds is not None else max(10.0, interval)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self, *, force: bool = False, grace: float | None = None) -> PassResult | None:
        """One recovery pass; None when another process holds this interval's lock."""
        if not force and not self.queue.try_lock("reaper", self.interval * 0.9):
            return None
        grace = self.grace_seconds if grace is None else grace
        with session_factory("background")() as session:
            requeued, gave_up = leases.expire(
                session=session, max_attempts=self.max_attempts, watch=self.watch
            )
            for submission_id in requeued:
                self.queue.enqueue(submission_id)
                self.publisher.publish(submission_id, "queued")
            for submission_id in gave_up:
                self.publisher.publish(submission_id, "done")
            cutoff = utcnow() - dt.timedelta(seconds=grace)
            queued = leases.queued_ids(session=session, created_before=cutoff)
            resent = self.queue.unsent(queued, STALE_SECONDS)
            for submission_id in resent:
                self.queue.enqueue(submission_id)
            recorded = self.queue.waiting(self.grace_seconds)
            gone = sorted(leases.not_queued(session=session, ids=recorded))
            self.queue.forget(gone)
        # 4. work kept by the server's clock (overdue exam attempts handed in at their deadline)
        run_background(
            session_maker=session_factory("background"), now=utcnow(), enqueue=self.queue.enqueue
        )
        result = PassResult(requeued=requeued, gave_up=gave_up, resent=resent, swept=len(gone))
        if requeued or gave_up or resent:
            log.warning(
                "reaper: re-queued %d expired, gave up %d, re-sent %d lost",
                len(requeued),
                len(gave_up),
                len(resent),
                extra={"requeued": requeued[:50], "gave_up": gave_up, "resent": resent[:50]},
            )
        return result

    def start(self) -> None:
        """Run a pass now, then every interval."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="reaper")
        self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                self.run_once()
            except Exception as exc:  # database or Redis away: next pass tries again
                log.warning("reaper pass failed: %s", exc)
            if self._stop.wait(self.interval):
                return

    def stop(self) -> None:
        """Stop after the current pass."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
