"""Recovery from the database: expired leases, rows whose message was lost, stale records.

One pass, at most once per interval across the deployment (a lock shared through the queue):
1. running rows whose lease lapsed (their worker died: no renewal for a lease length, timed on
   this process's monotonic clock, app/grading/lease_watch.py) go back to queued and are sent again;
   after `max_attempts` runs they end as internal_error instead, so a job that kills its worker
   cannot loop for ever;
2. queued rows older than a grace period that have no message waiting (Redis restarted or
   flushed, the web process died between commit and send) are sent again;
3. records of sent messages whose rows no longer wait are swept;
4. the same for typed jobs (rows of `jobs`: regrade, check, preview run, LMS post, hand-in),
   with the same lease rule; a typed job that keeps dying ends `failed` with a sentence saying why;
5. the background kinds (`BACKGROUND_KINDS`: exam attempts past their deadline handed in, due
   LMS grade posts sent) are queued as jobs when they have work (`hooks.JOB_DUE`) and none is
   queued or running, so a worker does them under a lease and nothing waits for a page read.
Everything it sends may also arrive by another path; `leases.claim` makes the extra run a no-op.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.db import session_factory
from app.grading import leases
from app.grading.lease_watch import LeaseWatch
from app.grading.runner import Publisher
from app.hooks import JOB_DUE, JOB_KINDS, run_background
from app.jobs import tasks
from app.jobs.base import GRADE, JobQueue, JobRef, as_ref
from app.models_base import utcnow

log = logging.getLogger(__name__)
STALE_SECONDS = 15 * 60  # a message waiting this long is assumed lost (dead-lettered) and resent
# Typed jobs the reaper queues itself, once at a time, when a worker knows their kind.
BACKGROUND_KINDS = ("hand_in", "lms_post")
KEEP_BACKGROUND_SECONDS = 3600  # their finished rows are kept this long (to look into), then pruned


@dataclass
class PassResult:
    """What one pass did (logged, and checked by tests)."""

    requeued: list[int]
    gave_up: list[int]
    resent: list[int]
    swept: int
    jobs_requeued: list[JobRef] = field(default_factory=list)
    jobs_failed: list[JobRef] = field(default_factory=list)
    jobs_resent: list[JobRef] = field(default_factory=list)


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
        background: tuple[str, ...] = (),
    ) -> None:
        self.queue = queue
        self.watch = LeaseWatch(lease_seconds=lease_seconds)  # lapsed leases, on a steady clock
        self.job_watch = LeaseWatch(lease_seconds=lease_seconds)  # the same for `jobs` rows
        self.background = background  # of BACKGROUND_KINDS, those this deployment runs
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
            resent = [as_ref(r).id for r in self.queue.unsent(queued, STALE_SECONDS)]
            for submission_id in resent:
                self.queue.enqueue(submission_id)
            jobs_requeued, jobs_failed = tasks.expire(
                session=session, max_attempts=self.max_attempts, watch=self.job_watch
            )
            for ref in jobs_requeued:
                self.queue.enqueue(ref)
            typed = tasks.queued_refs(session=session, created_before=cutoff)
            jobs_resent = [as_ref(r) for r in self.queue.unsent(typed, STALE_SECONDS)]
            for ref in jobs_resent:
                self.queue.enqueue(ref)
            recorded = self.queue.waiting(self.grace_seconds)
            grades = [r.id for r in recorded if r.kind == GRADE]
            others = {r.id: r for r in recorded if r.kind != GRADE}
            gone: list[JobRef] = [
                JobRef(GRADE, i) for i in sorted(leases.not_queued(session=session, ids=grades))
            ]
            gone += [others[i] for i in sorted(tasks.not_queued(session=session, ids=[*others]))]
            self.queue.forget(gone)
            self._queue_background(session)
        # work kept by the server's clock in a process that has not moved it to jobs
        run_background(
            session_maker=session_factory("background"), now=utcnow(), enqueue=self.queue.enqueue
        )
        result = PassResult(
            requeued=requeued,
            gave_up=gave_up,
            resent=resent,
            swept=len(gone),
            jobs_requeued=jobs_requeued,
            jobs_failed=jobs_failed,
            jobs_resent=jobs_resent,
        )
        if requeued or gave_up or resent or jobs_requeued or jobs_failed or jobs_resent:
            log.warning(
                "reaper: re-queued %d expired, gave up %d, re-sent %d lost (typed: %d, %d, %d)",
                len(requeued),
                len(gave_up),
                len(resent),
                len(jobs_requeued),
                len(jobs_failed),
                len(jobs_resent),
                extra={"requeued": requeued[:50], "gave_up": gave_up, "resent": resent[:50]},
            )
        return result

    def _queue_background(self, session: Session) -> None:
        """Queue each background kind this deployment knows, unless one is queued or running."""
        now = utcnow()
        kept = now - dt.timedelta(seconds=KEEP_BACKGROUND_SECONDS)
        for kind in self.background:
            if JOB_KINDS.get(kind) is None or tasks.active(session=session, kind=kind):
                continue
            due = JOB_DUE.get(kind)
            if due is not None and not due(session=session, now=now):
                continue
            tasks.prune(session=session, kind=kind, done_before=kept)
            job = tasks.create(session=session, kind=kind, payload={}, subject=kind)
            session.commit()
            self.queue.enqueue(tasks.ref_of(job))

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
