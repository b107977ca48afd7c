"""The job semantics on the submission row: claim with a lease, renew, finish once, recover.

`attempts` doubles as a fencing token: every claim increments it, and renewals and the final
store only succeed for the token that claimed last, so a worker that lost its lease (frozen,
cut off) can never overwrite the report of the worker that took the job over.

Clocks (issue 52): lease times are the database server's (`database_now`), never a worker's,
and only the reaper takes a lease back, when its `LeaseWatch` saw it unrenewed for a lease length
on a monotonic clock; so no wall-clock jump re-runs a live job or strands a dead worker's one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, select, update
from sqlalchemy.orm import Session

from app.events import grade_recorded
from app.grading.lease_watch import LeaseWatch
from app.jobs import lease_rule
from app.models_base import utcnow
from app.submissions.models import Submission, behaviour_key_of
from graders import file_level

GAVE_UP_MESSAGE = (
    "Grading stopped {n} times before it could finish (the grading machine went away). "
    "This is our fault, not yours; your code is saved, please submit again."
)
LEASED = lease_rule.LeasedTable(
    Submission, Submission.id, Submission.status, Submission.attempts, Submission.lease_expires_at
)


@dataclass(frozen=True)
class Claim:
    """A job this process holds: what to grade, and the token that proves the lease is ours."""

    submission_id: int
    token: int
    exercise: str
    framework: str
    mode: str
    code: str
    user_id: int  # whose grade it is, for the grade hook
    purpose: str  # practice, or `attempt:<id>` (an exam's answer)
    course: str | None = None  # the course whose exercise folder grades it (issue 27)


def claim(*, session: Session, submission_id: int, lease_seconds: float) -> Claim | None:
    """Take the job if it is queued; None if it is running, done or gone.

    A running job is never taken over here, however old its lease looks: a clock may have
    jumped. The reaper re-queues it once its lease truly lapsed (`expire`).
    """
    if not lease_rule.take(
        session=session, table=LEASED, row_id=submission_id, lease_seconds=lease_seconds
    ):
        return None
    row = session.get(Submission, submission_id, populate_existing=True)
    if row is None:  # deleted between the two statements
        return None
    claimed = Claim(
        submission_id=row.id,
        token=row.attempts,
        exercise=row.exercise_slug,
        framework=row.framework,
        mode=row.mode,
        code=row.code,
        course=row.course_slug,
        user_id=row.user_id,
        purpose=row.purpose,
    )
    session.expunge(row)  # `finish` writes the row with plain SQL: no stale copy stays here
    return claimed


def renew(*, session: Session, held: dict[int, int], lease_seconds: float) -> list[int]:
    """Extend the leases of the jobs held ({id: token}); return the ids whose lease was lost."""
    return lease_rule.renew(session=session, table=LEASED, held=held, lease_seconds=lease_seconds)


_ROW = cast(Table, Submission.__table__).c
# Built once (issue 54): the ORM's bulk update rebuilt, compiled and matched it against the
# session's objects for every grade. A claim leaves no copy of the row in its session.
_FINISH = (
    update(cast(Table, Submission.__table__))
    .where(
        _ROW.id == bindparam("f_id"),
        _ROW.attempts == bindparam("f_token"),
        _ROW.status.in_(("running", "queued")),
    )
    .values(
        status="done",
        verdict=bindparam("f_verdict"),
        score=bindparam("f_score"),
        message=bindparam("f_message"),
        report=bindparam("f_report", type_=_ROW.report.type),
        duration_ms=bindparam("f_duration_ms"),
        behaviour_key=bindparam("f_behaviour_key"),
        finished_at=bindparam("f_finished_at", type_=_ROW.finished_at.type),
        lease_expires_at=None,
    )
)


def finish(*, session: Session, held: Claim, report: dict[str, Any]) -> bool:
    """Store the final report if the lease is still ours (or the job was only re-queued).

    False when another run took the job over or already finished it: nothing is written, so
    a submission never gets a second final report. A failure while storing (a subscriber's too)
    rolls the whole grade back and propagates: the row stays leased and the reaper re-queues it
    when the lease runs out.
    """
    result = session.execute(
        _FINISH,
        {
            "f_id": held.submission_id,
            "f_token": held.token,
            "f_verdict": report["verdict"],
            "f_score": report["score"],
            "f_message": report["message"],
            "f_report": report,
            "f_duration_ms": report["duration_ms"],
            "f_behaviour_key": behaviour_key_of(report),
            "f_finished_at": utcnow(),
        },
    )
    stored = bool(result.rowcount == 1)  # type: ignore[attr-defined]
    try:
        if stored and held.mode == "submit":
            _tell(session, held)
        session.commit()
    except Exception:  # nothing of the grade is kept: the job stays leased, and runs again
        session.rollback()
        raise
    return stored


def _tell(session: Session, held: Claim) -> None:
    """Announce the stored grade in its transaction (`hooks.GRADE_RECORDED`): a stored grade is
    never left unsent to an LMS, nor an exam's exercise score unsettled."""
    grade_recorded(
        session=session,
        user_id=held.user_id,
        kind="exercise",
        slug=held.exercise,
        submission_id=held.submission_id,
        purpose=held.purpose,
    )


def release(*, session: Session, held: Claim) -> bool:
    """Give a job back unfinished (the process is stopping): it is queued again at once."""
    result = session.execute(
        update(Submission)
        .where(
            Submission.id == held.submission_id,
            Submission.attempts == held.token,
            Submission.status == "running",
        )
        .values(status="queued", lease_expires_at=None)
    )
    session.commit()
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]


def expire(
    *, session: Session, max_attempts: int, watch: LeaseWatch
) -> tuple[list[int], list[int]]:
    """Reset running jobs whose lease lapsed: (re-queued ids, ids given up as internal_error).

    Lapsed means unrenewed for a lease length as `watch` timed it. Each reset is conditional on
    the lease being the one the watch saw, so a renewal in between keeps the job, and when
    several reapers run at once exactly one of them re-queues a given job.
    """
    return lease_rule.reset_lapsed(
        session=session, table=LEASED, watch=watch, max_attempts=max_attempts, gave_up=_gave_up
    )


def _gave_up(submission_id: int, attempts: int, now: dt.datetime) -> dict[str, Any]:
    """A grade that stopped too often ends as an internal error that says so."""
    report = file_level("internal_error", GAVE_UP_MESSAGE.format(n=attempts), 0.0).to_dict()
    return {
        "status": "done",
        "verdict": report["verdict"],
        "score": report["score"],
        "message": report["message"],
        "report": report,
        "duration_ms": report["duration_ms"],
        "finished_at": now,
        "lease_expires_at": None,
    }


def queued_ids(*, session: Session, created_before: dt.datetime) -> list[int]:
    """Queued jobs old enough that their message must exist by now, oldest first."""
    return list(
        session.scalars(
            select(Submission.id)
            .where(Submission.status == "queued", Submission.created_at < created_before)
            .order_by(Submission.id)
        )
    )


def not_queued(*, session: Session, ids: list[int]) -> set[int]:
    """Which of these ids are no longer waiting (running, done or deleted)."""
    if not ids:
        return set()
    waiting = set(
        session.scalars(
            select(Submission.id).where(Submission.id.in_(ids), Submission.status == "queued")
        )
    )
    return set(ids) - waiting


def counts(*, session: Session) -> dict[str, int]:
    """Submissions per status (for metrics)."""
    rows = session.execute(select(Submission.status, func.count()).group_by(Submission.status))
    return {str(status): int(n) for status, n in rows}
