"""Re-grade every stored submission of an exercise after its tests change, as a job on the queue.

The regrade row is the truth: progress is counted there, each replaced report goes to the history
table. A regrade belongs to the course and offering whose staff started it (its row says which):
it grades their submissions only, and only their pages show it. It runs as a typed `regrade` job
(app/jobs/tasks.py) in a worker, never in the web process: under the one lease rule a killed
worker's regrade is run again by the reaper and resumes where it stopped. Grading is one
submission at a time so students' own submissions keep most of the grader pool. A changed score
is a recorded grade (`hooks.GRADE_RECORDED`), so the LMS outbox queues its post.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from app.courses.service import exercises_dir_for, process_registry
from app.courses.version import content_version
from app.db import database_now, serialize, session_factory
from app.grading.service import get_grader
from app.hooks import grade_recorded
from app.instructor.graded_score import score_without_override
from app.instructor.models import RegradeJob, SubmissionReport
from app.jobs import tasks
from app.jobs.base import JobQueue
from app.jobs.models import Job
from app.jobs.tasks import JobFailed
from app.models_base import as_utc, utcnow
from app.offerings.access import offering_id_here, work_here
from app.offerings.first import offering_and_legacy
from app.offerings.place import Place
from app.offerings.service import work_in
from app.submissions.models import Submission, behaviour_key_of
from app.users.models import User
from graders import Grader, Mode, PoolStopped

log = logging.getLogger(__name__)
STALE = dt.timedelta(seconds=60)
ACTIVE = ("queued", "running")
MAX_ERRORS_KEPT = 200
Launcher = Callable[[int], None]


class RegradeFailed(Exception):
    """This submission could not be re-graded; its current report stays."""


def forget_exercise(grader: Grader, slug: str) -> None:
    """Make the grader re-read an exercise's tests and known mistakes from disk."""
    grader.forget(slug)


def latest_job(*, session: Session, slug: str, place: Place) -> RegradeJob | None:
    """The newest regrade of this exercise in the place's course and offering, if any (another
    offering's is neither shown on its page nor in the way of its own)."""
    return session.scalar(
        select(RegradeJob)
        .where(
            RegradeJob.exercise_slug == slug,
            RegradeJob.course_slug == place.course_slug,
            work_here(session, RegradeJob.offering_id, place),
        )
        .order_by(RegradeJob.id.desc())
        .limit(1)
    )


def _is_stale(job: RegradeJob, now: dt.datetime) -> bool:
    """No heartbeat for STALE by the database's clock (which wrote it), or one that lies
    further ahead than STALE: the clock was set back since, and waiting would hide a dead job."""
    beat = as_utc(job.heartbeat_at or job.started_at or job.created_at)
    return job.status in ACTIVE and abs(now - beat) > STALE


def job_view(job: RegradeJob | None, slug: str, *, now: dt.datetime) -> dict[str, Any]:
    """The progress a page or script polls: done/total, and every submission that failed.

    `now` is the database's clock (`database_now`), the one the heartbeat was written with.
    """
    if job is None:
        return {"exercise": slug, "status": "none", "done": 0, "total": 0}
    return {
        "id": job.id,
        "exercise": job.exercise_slug,
        "status": "interrupted" if _is_stale(job, now) else job.status,
        "done": job.done,
        "total": job.total,
        "changed": job.changed,
        "failed": job.failed,
        "errors": job.errors or [],
        "created_at": as_utc(job.created_at).isoformat(),
        "finished_at": as_utc(job.finished_at).isoformat() if job.finished_at else None,
    }


def _submissions_of(session: Session, job: RegradeJob) -> list[ColumnElement[bool]]:
    """SQL: submissions of the regrade's course that count in its offering (one with no offering
    counts only in the first course's first, `where_row_counts`), whatever their purpose."""
    here, legacy = offering_and_legacy(
        session=session, offering_id=job.offering_id, course_slug=job.course_slug
    )
    return [
        Submission.course_slug == job.course_slug,
        work_in(Submission.offering_id, here, legacy=legacy),
    ]


def _graded_ids(session: Session, job: RegradeJob) -> list[int]:
    """The graded submissions this regrade grades again: its exercise's, in its place."""
    return list(
        session.scalars(
            select(Submission.id)
            .where(
                Submission.exercise_slug == job.exercise_slug,
                Submission.status == "done",
                *_submissions_of(session, job),
            )
            .order_by(Submission.id)
        )
    )


KIND = "regrade"


def subject_of(regrade_id: int) -> str:
    """The `jobs` row's subject for this regrade."""
    return f"regrade:{regrade_id}"


def on_queue(
    *, session: Session, queue: JobQueue, course_slug: str | None, offering_id: int | None, by: int
) -> Launcher:
    """A launcher that queues the regrade as a `regrade` job (once: a queued or running job of
    the same regrade is left to finish)."""

    def launch(regrade_id: int) -> None:
        job = tasks.latest(session=session, subject=subject_of(regrade_id))
        if job is None or job.state not in tasks.ACTIVE:
            job = tasks.create(
                session=session,
                kind=KIND,
                payload={"regrade": regrade_id},
                subject=subject_of(regrade_id),
                course_slug=course_slug,
                offering_id=offering_id,
                created_by=by,
            )
            session.commit()
        queue.enqueue(tasks.ref_of(job))

    return launch


def task_of(*, session: Session, regrade: RegradeJob | None) -> Job | None:
    """The queue's job of this regrade (its id is what `GET /api/jobs/{id}` answers)."""
    return (
        None if regrade is None else tasks.latest(session=session, subject=subject_of(regrade.id))
    )


def start_regrade(
    *, session: Session, slug: str, instructor: User, launch: Launcher, place: Place
) -> tuple[RegradeJob, bool]:
    """Start (or resume) the exercise's regrade in the place's course and offering; (job, False)
    when one is already running there."""
    offering_id, _ = offering_id_here(session=session, place=place)
    # A double click, two instructors of one offering: one regrade (another offering's is apart).
    serialize(session, f"regrade of {slug} in {place.course_slug} offering {offering_id}")
    job = latest_job(session=session, slug=slug, place=place)
    now = database_now(session)
    if job is not None and job.status in ACTIVE:
        if not _is_stale(job, now):
            return job, False
        job.status, job.heartbeat_at = "queued", now  # resume where it stopped
        session.commit()
        launch(job.id)
        return job, True
    job = RegradeJob(
        exercise_slug=slug,
        course_slug=place.course_slug,
        offering_id=offering_id,
        status="queued",
        errors=[],
        started_by=instructor.id,
        heartbeat_at=now,
    )
    job.total = len(_graded_ids(session, job))
    session.add(job)
    session.commit()
    launch(job.id)
    return job, True


@functools.lru_cache(maxsize=32)
def _folder_version(folder: str, stamp: int) -> str:
    return content_version(Path(folder))


def version_on_disk(course_slug: str | None) -> str | None:
    """The version of the course files the grader reads now (a regrade runs after an edit, so
    the served version may lag); hashed once per course per second."""
    source = process_registry().source(course_slug or "") if course_slug else None
    if source is None:
        return None
    return _folder_version(str(source.folder), int(time.monotonic()))


def regrade_one(*, session: Session, grader: Grader, submission_id: int, job_id: int) -> bool:
    """Grade one stored submission again; True when its score changed (then the grade is
    recorded, in the same transaction, so the LMS gets the new score)."""
    row = session.get(Submission, submission_id)
    if row is None or row.status != "done":
        return False
    mode: Mode = "run" if row.mode == "run" else "submit"
    report = grader.grade(
        exercise=row.exercise_slug,
        code=row.code,
        framework=row.framework,
        mode=mode,
        exercises_dir=exercises_dir_for(row.course_slug),  # its own course's folder
    ).to_dict()
    if report["verdict"] == "internal_error":
        raise RegradeFailed(f"the grader failed: {report['message']}")
    session.add(
        SubmissionReport(
            submission_id=row.id,
            regrade_job_id=job_id,
            verdict=row.verdict,
            score=(row.report or {}).get("score", row.score),
            report=row.report,
            graded_at=row.finished_at,
            content_version=row.content_version,
        )
    )
    before = row.score
    row.report = report
    row.verdict = report["verdict"]
    row.message = report["message"]
    row.duration_ms = report["duration_ms"]
    row.behaviour_key = behaviour_key_of(report)
    # The course version this report was graded against (the replaced one keeps its own).
    row.content_version = version_on_disk(row.course_slug) or row.content_version
    # An instructor's override stays in force; otherwise the new report decides, with a person's
    # rubric grade still applied (a graded lab's score stays the person's, never the run's).
    row.score = (
        row.override_score
        if row.override_score is not None
        else score_without_override(session=session, submission=row)
    )
    changed = before != row.score
    if changed and row.mode == "submit":
        grade_recorded(
            session=session,
            user_id=row.user_id,
            kind="exercise",
            slug=row.exercise_slug,
            submission_id=row.id,
            purpose=row.purpose,
        )
    session.commit()
    return changed


def _remaining(session: Session, job: RegradeJob) -> list[int]:
    finished = set(
        session.scalars(
            select(SubmissionReport.submission_id).where(SubmissionReport.regrade_job_id == job.id)
        )
    )
    return [i for i in _graded_ids(session, job) if i not in finished]


def _record_error(job: RegradeJob, submission_id: int, message: str) -> None:
    job.failed += 1
    if len(job.errors or []) < MAX_ERRORS_KEPT:
        job.errors = [*(job.errors or []), {"submission_id": submission_id, "message": message}]


def run_job(job_id: int, report: Callable[[dict[str, Any]], object] | None = None) -> None:
    """Work through the job's submissions; an error is recorded per submission, never fatal.

    `report` hears the progress after each submission. A grader that is stopping raises
    PoolStopped: the queue gives the job back and it resumes where it stopped.
    """
    with session_factory("background")() as session:
        job = session.get(RegradeJob, job_id)
        if job is None:
            return
        now = database_now(session)
        job.status, job.started_at, job.heartbeat_at = "running", now, now
        session.commit()
        try:
            grader = get_grader()
            forget_exercise(grader, job.exercise_slug)
            todo = _remaining(session, job)
            job.total = job.done + len(todo)
            session.commit()
            for submission_id in todo:
                try:
                    changed = regrade_one(
                        session=session, grader=grader, submission_id=submission_id, job_id=job.id
                    )
                    job.changed += changed
                except PoolStopped:
                    session.rollback()
                    log.info("regrade %s paused: the grader is shutting down", job_id)
                    raise  # stays 'running'; the queue runs it again, from where it stopped
                except Exception as exc:
                    session.rollback()
                    log.warning("regrade %s: submission %s failed", job_id, submission_id)
                    _record_error(job, submission_id, str(exc)[:500] or type(exc).__name__)
                job.done += 1
                job.heartbeat_at = database_now(session)
                session.commit()
                if report is not None:
                    report(_counts(job))
            job.status, job.finished_at = "done", utcnow()
            session.commit()
            log.info("regrade %s of %s: %s changed", job_id, job.exercise_slug, job.changed)
        except PoolStopped:
            raise
        except Exception:
            log.exception("regrade %s failed", job_id)
            session.rollback()
            job.status, job.finished_at = "failed", utcnow()
            session.commit()


def _counts(job: RegradeJob) -> dict[str, Any]:
    return {
        "regrade": job.id,
        "exercise": job.exercise_slug,
        "status": job.status,
        "done": job.done,
        "total": job.total,
        "changed": job.changed,
        "failed": job.failed,
    }


def regrade_work(run: Any) -> dict[str, Any]:
    """The `regrade` kind's work in a worker (`hooks.JOB_KINDS`): the regrade, to its end."""
    regrade_id = int(run.payload["regrade"])
    run_job(regrade_id, report=run.progress)
    with session_factory("background")() as session:
        job = session.get(RegradeJob, regrade_id)
        if job is None:
            raise JobFailed(f"regrade {regrade_id} was deleted")
        return _counts(job)
