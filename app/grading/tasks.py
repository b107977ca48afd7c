"""One typed job (not a grade), the same in every mode: claim its row, do its kind's work, store.

The kinds' work is plugged into `hooks.JOB_KINDS` (app/wiring.py, app/jobkinds.py); the lease
rule is the submissions' one (app/jobs/tasks.py), renewed by the same `Held` thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.db import session_factory
from app.grading.runner import Held
from app.hooks import JOB_KINDS
from app.jobs import tasks
from app.jobs.base import Ref
from graders import PoolStopped

log = logging.getLogger(__name__)
UNKNOWN_KIND = "No worker of this deployment knows jobs of kind '{kind}'."


@dataclass(frozen=True)
class TaskRun:
    """What a kind's work receives: its claim, and a way to store progress and open sessions."""

    claim: tasks.TaskClaim
    session_maker: Callable[[], Session]
    enqueue: Callable[[Ref], None] = lambda job: None  # send further jobs (grades of a hand-in)

    @property
    def payload(self) -> dict[str, Any]:
        """The job's own arguments."""
        return self.claim.payload

    def progress(self, result: dict[str, Any]) -> bool:
        """Store progress on the row; False once the lease is lost (the work should stop)."""
        with self.session_maker() as session:
            return tasks.progress(session=session, held=self.claim, result=result)


def run_task(
    job_id: int, *, held: Held, max_attempts: int = 3, enqueue: Callable[[Ref], None] | None = None
) -> str | None:
    """Run one typed job; safe to call any number of times for the same id. What happened."""
    maker = session_factory("background")
    with maker() as session:
        claim = tasks.claim(session=session, job_id=job_id, lease_seconds=held.lease_seconds)
    if claim is None:
        log.info("job %s: already taken or finished", job_id, extra={"job_id": job_id})
        return None
    held.add_task(claim)
    try:
        work = JOB_KINDS.get(claim.kind)
        if work is None:
            with maker() as session:
                unknown = UNKNOWN_KIND.format(kind=claim.kind)
                tasks.fail(session=session, held=claim, message=unknown)
            return "failed"
        log.info("job %s: %s (attempt %s)", job_id, claim.kind, claim.token)
        try:
            result = work(TaskRun(claim, maker, enqueue or (lambda job: None)))
        except PoolStopped:
            with maker() as session:
                tasks.release(session=session, held=claim)
            return "released"
        except tasks.JobFailed as exc:
            with maker() as session:
                tasks.fail(session=session, held=claim, message=str(exc))
            return "failed"
        except Exception as exc:
            log.exception("job %s (%s) failed", job_id, claim.kind)
            last = f"{type(exc).__name__}: {exc}"
            with maker() as session:
                if claim.token < max_attempts:
                    tasks.release(session=session, held=claim, error=last)
                    return "retry"  # the caller sends it again (else the reaper would)
                message = tasks.FAILED.format(n=claim.token, last=last)
                tasks.fail(session=session, held=claim, message=message)
            return "failed"
        with maker() as session:
            stored = tasks.finish(session=session, held=claim, result=result)
        return "stored" if stored else "superseded"
    finally:
        held.remove_task(job_id)
