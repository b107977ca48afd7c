"""One job, the same in every mode: claim the row, grade with the warm pool, store once, announce.

`Held` tracks the jobs this process is running and renews their leases in the background, so a
lease only runs out when the process is gone (or frozen); the reaper then re-queues the job.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Protocol

from app.courses.service import exercises_dir_for
from app.db import session_factory
from app.grading import leases
from app.grading.service import get_grader
from app.jobs import live, tasks
from graders import Mode, PoolStopped, UnknownExercise, UnknownFramework, file_level

log = logging.getLogger(__name__)


class Publisher(Protocol):
    """Tells web processes that a submission's status changed."""

    def publish(self, submission_id: int, status: str) -> None:
        """Announce the new status (best effort: listeners re-check the database anyway)."""


class Held:
    """Jobs held by this process ({id: token}: submissions, and rows of `jobs`), with a thread
    that keeps their leases alive."""

    def __init__(self, lease_seconds: float) -> None:
        self.lease_seconds = lease_seconds
        self._jobs: dict[int, int] = {}
        self._tasks: dict[int, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, claim: leases.Claim) -> None:
        """Start renewing this job's lease."""
        with self._lock:
            self._jobs[claim.submission_id] = claim.token

    def remove(self, submission_id: int) -> None:
        """Stop renewing (the job is finished or given back)."""
        with self._lock:
            self._jobs.pop(submission_id, None)

    def add_task(self, claim: tasks.TaskClaim) -> None:
        """Start renewing the lease of a typed job."""
        with self._lock:
            self._tasks[claim.job_id] = claim.token

    def remove_task(self, job_id: int) -> None:
        """Stop renewing a typed job's lease."""
        with self._lock:
            self._tasks.pop(job_id, None)

    def ids(self) -> list[int]:
        """Submission ids being graded here now."""
        with self._lock:
            return sorted(self._jobs)

    def renew_now(self) -> list[int]:
        """Extend every held lease once; returns the ids whose lease was lost."""
        with self._lock:
            held, typed = dict(self._jobs), dict(self._tasks)
        if not held and not typed:
            return []
        with session_factory("background")() as session:
            lost = leases.renew(session=session, held=held, lease_seconds=self.lease_seconds)
            gone = tasks.renew(session=session, held=typed, lease_seconds=self.lease_seconds)
            for job_id in gone:
                log.warning("job %s: lease lost; another run may finish it", job_id)
        for submission_id in lost:
            log.warning(
                "submission %s: lease lost; another run may finish it",
                submission_id,
                extra={"submission_id": submission_id},
            )
        return lost

    def start(self) -> None:
        """Renew leases every third of their length."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="lease-keeper")
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.lease_seconds / 3):
            try:
                self.renew_now()
            except Exception:  # the database may be briefly away; try again next round
                log.exception("could not renew job leases")

    def stop(self) -> None:
        """Stop renewing (after the jobs have drained)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


INTERNAL_ERROR = (
    "The grader failed; this is our fault, not yours. Your code is saved; please submit again."
)


def grade_claim(claim: leases.Claim) -> dict[str, Any]:
    """The report for a claimed job; raises only when the grader itself failed."""
    mode: Mode = "run" if claim.mode == "run" else "submit"
    if live.stop_requested(claim.submission_id):  # stopped while it waited in the queue
        return file_level(
            "cancelled", "You stopped this run before it started. Press Submit to train again.", 0.0
        ).to_dict()
    try:
        return (
            get_grader()
            .grade(
                exercise=claim.exercise,
                code=claim.code,
                framework=claim.framework,
                mode=mode,
                progress=live.recorder(claim.submission_id),
                exercises_dir=exercises_dir_for(claim.course),
            )
            .to_dict()
        )
    except (UnknownExercise, UnknownFramework) as exc:
        return file_level(
            "invalid_submission",
            f"This exercise can no longer be graded ({exc}); ask your instructor.",
            0.0,
        ).to_dict()


def run_job(
    submission_id: int, *, held: Held, publisher: Publisher, max_attempts: int = 3
) -> str | None:
    """Run one job; safe to call any number of times for the same id. Returns what happened.

    A failure of the grader itself (no interpreter in time, a broken pool) is the platform's
    fault: the job goes back to the queue for another run, up to `max_attempts` runs in all;
    only then is an internal_error stored.
    """
    ids = {"submission_id": submission_id}
    with session_factory("background")() as session:
        claim = leases.claim(
            session=session, submission_id=submission_id, lease_seconds=held.lease_seconds
        )
        if claim is None:
            log.info(
                "submission %s: already taken or finished",
                submission_id,
                extra={**ids, "event": "skipped"},
            )
            return None
        held.add(claim)
        try:
            publisher.publish(submission_id, "running")
            log.info(
                "submission %s: grading (%s, %s, attempt %s)",
                submission_id,
                claim.exercise,
                claim.framework,
                claim.token,
                extra={
                    **ids,
                    "event": "claimed",
                    "framework": claim.framework,
                    "attempt": claim.token,
                },
            )
            started = time.perf_counter()
            try:
                report = grade_claim(claim)
            except PoolStopped:
                leases.release(session=session, held=claim)
                log.info(
                    "submission %s: given back, the grader is stopping",
                    submission_id,
                    extra={**ids, "event": "released"},
                )
                return "released"
            except Exception:
                log.exception("internal error grading submission %s", submission_id, extra=ids)
                if claim.token < max_attempts and leases.release(session=session, held=claim):
                    publisher.publish(submission_id, "queued")
                    log.info(
                        "submission %s: queued again after a grader failure",
                        submission_id,
                        extra={**ids, "event": "retry"},
                    )
                    return "retry"
                report = file_level("internal_error", INTERNAL_ERROR, 0.0).to_dict()
            stored = leases.finish(session=session, held=claim, report=report)
        finally:
            held.remove(submission_id)
            live.clear(submission_id)
    if not stored:
        log.warning(
            "submission %s: finished elsewhere; report dropped",
            submission_id,
            extra={**ids, "event": "superseded"},
        )
        return "superseded"
    publisher.publish(submission_id, "done")
    log.info(
        "submission %s: stored %s",
        submission_id,
        report["verdict"],
        extra={
            **ids,
            "event": "stored",
            "verdict": report["verdict"],
            "framework": claim.framework,
            "grading_ms": round(report["duration_ms"], 1),
            "job_ms": round((time.perf_counter() - started) * 1000, 1),
        },
    )
    return "stored"
