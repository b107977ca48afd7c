"""Preview's Run as a `preview_run` job: an author's code graded against a draft's tests.

Why a job: the draft's tests are content code a browser wrote. Like a draft's check, they are
graded by the queue's consumers (the embedded queue's grading threads, or `python -m app
worker` with Redis), never by a grader of the web request's own. The request queues the job
and answers at once; the preview page (or the API) follows the job until its report is there.
A run is its author's: nobody else reads its code or report, and old runs are pruned.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy.orm import Session

from app.authoring import drafts, paths, preview_run, service
from app.content.loader import Exercise
from app.courses.registry import CourseSource
from app.courses.service import process_registry
from app.errors import DomainError
from app.jobs import tasks
from app.jobs.base import JobQueue
from app.jobs.models import Job
from app.jobs.tasks import JobFailed
from app.models_base import utcnow
from app.users.models import User
from graders import Mode, Report

KIND = "preview_run"
KEPT = dt.timedelta(days=1)  # a finished run's row (its code and report) is kept this long
NO_RUN = "There is no such run of yours in this course."
NO_DRAFT_EXERCISE = "The exercise '{slug}' does not load; open its files to see the problems."
NOT_OFFERED = "The exercise '{slug}' is not offered in '{framework}'; it offers: {offered}."


def draft_exercise(
    *, session: Session, source: CourseSource, slug: str, framework: str | None
) -> tuple[Exercise, str]:
    """The exercise as its drafts make it, and the framework asked for (or its first); 404."""
    exercise = service.draft_course(session=session, source=source).exercise(slug)
    if exercise is None:
        raise DomainError(404, NO_DRAFT_EXERCISE.format(slug=slug))
    chosen = framework or exercise.meta.frameworks[0]
    if chosen not in exercise.meta.frameworks:
        offered = ", ".join(exercise.meta.frameworks)
        raise DomainError(404, NOT_OFFERED.format(slug=slug, framework=chosen, offered=offered))
    return exercise, chosen


def queue_run(
    *,
    session: Session,
    queue: JobQueue,
    source: CourseSource,
    slug: str,
    code: str,
    framework: str | None,
    mode: Mode,
    user: User,
) -> Job:
    """Queue a run of CODE against the draft of exercise SLUG (checked to load first)."""
    paths.check_size(code)
    _, chosen = draft_exercise(session=session, source=source, slug=slug, framework=framework)
    tasks.prune(session=session, kind=KIND, done_before=utcnow() - KEPT)
    job = tasks.create(
        session=session,
        kind=KIND,
        payload={
            "course": source.slug,
            "exercise": slug,
            "framework": chosen,
            "mode": mode,
            "code": code,
        },
        subject=f"run:{source.slug}/{slug}",
        course_slug=source.slug,
        created_by=user.id,
    )
    session.commit()
    queue.enqueue(tasks.ref_of(job))
    return job


def run_url(course: str, job_id: int) -> str:
    """Where a script polls the run."""
    return f"/api/courses/{course}/authoring/runs/{job_id}"


def page_url(course: str, slug: str, job_id: int) -> str:
    """The preview page that shows the run (and refreshes until it is done)."""
    return f"/authoring/{course}/preview/exercises/{slug}/runs/{job_id}"


def run_of(*, session: Session, course_slug: str, job_id: int, user: User) -> Job:
    """The user's own run in this course, or 404."""
    job = session.get(Job, job_id)
    if (
        job is None
        or job.kind != KIND
        or job.course_slug != course_slug
        or job.created_by != user.id
    ):
        raise DomainError(404, NO_RUN)
    return job


def report_of(job: Job) -> Report | None:
    """The grader's report, once the job is done."""
    stored = (job.result or {}).get("report") if job.state == "done" else None
    return Report.from_dict(stored) if stored else None


def run_view(job: Job) -> dict[str, Any]:
    """A run as the page polls it: `state` (queued, running, done, failed), then the report."""
    payload = job.payload or {}
    report = report_of(job)
    return {
        "job": job.id,
        "exercise": payload.get("exercise"),
        "framework": payload.get("framework"),
        "mode": payload.get("mode"),
        "state": job.state,
        "report": report.to_dict() if report is not None else None,
        "error": job.error or None,
    }


def run_work(run: Any) -> dict[str, Any]:
    """The `preview_run` kind's work (`hooks.JOB_KINDS`), in a consumer of the queue."""
    payload = run.payload
    course, slug = str(payload["course"]), str(payload["exercise"])
    source = process_registry().source(course)
    if source is None:
        raise JobFailed(f"The course '{course}' is not served here any more.")
    with run.session_maker() as session:
        texts = {d.path: d.text for d in drafts.drafts_of(session=session, course_slug=course)}
    mode: Mode = "submit" if payload.get("mode") == "submit" else "run"
    report = preview_run.grade_draft(
        texts=texts,
        source=source,
        slug=slug,
        code=str(payload["code"]),
        framework=str(payload["framework"]),
        mode=mode,
    )
    return {"report": report.to_dict()}
