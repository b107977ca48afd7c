"""The lease rule on `jobs` rows, the same as on submissions: claim, renew, finish once, recover.

`attempts` is the fencing token, as on a submission (app/grading/leases.py): every claim
increments it, and renewals, progress and the final store only succeed for the token that
claimed last. Lease times are the database's clock; only the reaper takes a lease back, when
its `LeaseWatch` saw it unrenewed for a lease length. After `max_attempts` runs a job ends
`failed` with a sentence saying why, so a job that keeps failing never spins for ever.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.jobs import lease_rule
from app.jobs.base import JobRef
from app.jobs.lease_watch import LeaseWatch
from app.jobs.models import Job
from app.models_base import as_utc, utcnow

ACTIVE = ("queued", "running")
LEASED = lease_rule.LeasedTable(Job, Job.id, Job.state, Job.attempts, Job.lease_expires_at)
GAVE_UP = "This job stopped {n} times before it could finish (its worker went away): {last}"
FAILED = "This job failed {n} times; the last error: {last}"


class JobFailed(Exception):
    """The job cannot succeed (its exercise is gone...): it fails at once, with this message."""


@dataclass(frozen=True)
class TaskClaim:
    """A job this process holds: what to do, and the token that proves the lease is ours."""

    job_id: int
    token: int
    kind: str
    payload: dict[str, Any]
    course_slug: str | None
    offering_id: int | None
    created_by: int | None

    @property
    def ref(self) -> JobRef:
        """The job as the queue names it."""
        return JobRef(self.kind, self.job_id)


def create(
    *,
    session: Session,
    kind: str,
    payload: dict[str, Any],
    subject: str | None = None,
    course_slug: str | None = None,
    offering_id: int | None = None,
    created_by: int | None = None,
) -> Job:
    """Add a queued job (flushed, not committed: the caller commits, then enqueues its ref)."""
    job = Job(
        kind=kind,
        payload=payload,
        subject=subject,
        course_slug=course_slug,
        offering_id=offering_id,
        created_by=created_by,
        state="queued",
        attempts=0,
    )
    session.add(job)
    session.flush()
    return job


def ref_of(job: Job) -> JobRef:
    """The queue's name for a row."""
    return JobRef(job.kind, job.id)


def latest(*, session: Session, subject: str) -> Job | None:
    """The newest job about this subject."""
    return session.scalar(
        select(Job).where(Job.subject == subject).order_by(Job.id.desc()).limit(1)
    )


def claim(*, session: Session, job_id: int, lease_seconds: float) -> TaskClaim | None:
    """Take the job if it is queued; None if it is running, finished or gone."""
    taken = lease_rule.take(
        session=session,
        table=LEASED,
        row_id=job_id,
        lease_seconds=lease_seconds,
        started_at=lease_rule.NOW,
    )
    if not taken:
        return None
    row = session.get(Job, job_id, populate_existing=True)
    if row is None:
        return None
    return TaskClaim(
        job_id=row.id,
        token=row.attempts,
        kind=row.kind,
        payload=dict(row.payload or {}),
        course_slug=row.course_slug,
        offering_id=row.offering_id,
        created_by=row.created_by,
    )


def _ours(held: TaskClaim) -> tuple[Any, ...]:
    return LEASED.held(held.job_id, held.token)


def renew(*, session: Session, held: dict[int, int], lease_seconds: float) -> list[int]:
    """Extend the leases of the jobs held ({id: token}); return the ids whose lease was lost."""
    return lease_rule.renew(session=session, table=LEASED, held=held, lease_seconds=lease_seconds)


def progress(*, session: Session, held: TaskClaim, result: dict[str, Any]) -> bool:
    """Store what the job has done so far (polled by pages); False once the lease is lost."""
    done = session.execute(update(Job).where(*_ours(held)).values(result=result))
    session.commit()
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def finish(*, session: Session, held: TaskClaim, result: dict[str, Any] | None) -> bool:
    """Store the result once, if the lease is still ours; False when another run took over."""
    done = session.execute(
        update(Job)
        .where(*_ours(held))
        .values(state="done", result=result, error="", finished_at=utcnow(), lease_expires_at=None)
    )
    session.commit()
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def fail(*, session: Session, held: TaskClaim, message: str) -> bool:
    """End the job as failed with a sentence saying why (no more runs)."""
    done = session.execute(
        update(Job)
        .where(*_ours(held))
        .values(state="failed", error=message[:4000], finished_at=utcnow(), lease_expires_at=None)
    )
    session.commit()
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def release(*, session: Session, held: TaskClaim, error: str = "") -> bool:
    """Give the job back unfinished (the worker stops, or this run failed): queued again."""
    done = session.execute(
        update(Job)
        .where(*_ours(held))
        .values(state="queued", lease_expires_at=None, error=error[:4000])
    )
    session.commit()
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def expire(
    *, session: Session, max_attempts: int, watch: LeaseWatch
) -> tuple[list[JobRef], list[JobRef]]:
    """Reset running jobs whose lease lapsed: (re-queued, given up as failed), as for grades."""
    running = session.execute(
        select(Job.id, Job.kind, Job.error).where(Job.state == "running")
    ).all()
    kinds = {int(r.id): (str(r.kind), str(r.error or "")) for r in running}

    def gave_up(job_id: int, attempts: int, now: dt.datetime) -> dict[str, Any]:
        last = kinds.get(job_id, ("", ""))[1] or "no error was recorded"
        return {
            "state": "failed",
            "error": GAVE_UP.format(n=attempts, last=last),
            "finished_at": now,
            "lease_expires_at": None,
        }

    requeued, ended = lease_rule.reset_lapsed(
        session=session, table=LEASED, watch=watch, max_attempts=max_attempts, gave_up=gave_up
    )
    return [_ref(i, kinds) for i in requeued], [_ref(i, kinds) for i in ended]


def _ref(job_id: int, kinds: dict[int, tuple[str, str]]) -> JobRef:
    return JobRef(kinds.get(job_id, ("", ""))[0], job_id)


def queued_refs(*, session: Session, created_before: dt.datetime) -> list[JobRef]:
    """Queued jobs old enough that their message must exist by now, oldest first."""
    rows = session.execute(
        select(Job.id, Job.kind)
        .where(Job.state == "queued", Job.created_at < created_before)
        .order_by(Job.id)
    )
    return [JobRef(str(kind), int(i)) for i, kind in rows]


def not_queued(*, session: Session, ids: list[int]) -> set[int]:
    """Which of these job ids are no longer waiting (running, finished or deleted)."""
    if not ids:
        return set()
    waiting = set(session.scalars(select(Job.id).where(Job.id.in_(ids), Job.state == "queued")))
    return set(ids) - waiting


def active(*, session: Session, kind: str) -> bool:
    """A job of this kind is queued or running (a background kind runs once at a time)."""
    found = session.scalar(select(Job.id).where(Job.kind == kind, Job.state.in_(ACTIVE)).limit(1))
    return found is not None


def prune(*, session: Session, kind: str, done_before: dt.datetime) -> int:
    """Delete this kind's finished rows older than that (a background kind runs every few
    seconds; its rows are not history). No commit: the caller's."""
    gone = session.execute(
        delete(Job).where(
            Job.kind == kind, Job.state.in_(("done", "failed")), Job.finished_at < done_before
        )
    )
    return int(gone.rowcount or 0)  # type: ignore[attr-defined]


def view(job: Job) -> dict[str, Any]:
    """A job as a page or script polls it."""
    return {
        "id": job.id,
        "kind": job.kind,
        "state": job.state,
        "attempts": job.attempts,
        "result": job.result,
        "error": job.error or None,
        "created_at": as_utc(job.created_at).isoformat(),
        "finished_at": as_utc(job.finished_at).isoformat() if job.finished_at else None,
    }
