"""Start a regrade and follow its progress: a JSON API for scripts and the page's button."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.content.service import CourseDep
from app.db import database_now
from app.errors import DomainError
from app.instructor.models import RegradeJob
from app.instructor.regrade import Launcher, job_view, latest_job, on_queue, start_regrade, task_of
from app.instructor.web import find_exercise
from app.jobs import tasks
from app.jobs.base import JobQueue
from app.jobs.deps import QueueDep
from app.jobs.models import Job
from app.offerings.access import InstructorUser, offering_id_here, row_here
from app.offerings.place import Place, PlaceDep
from app.web.api import RowId, errors
from app.web.course_urls import SCOPE_BASE
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


@router.post(
    "/api/exercises/{slug}/regrade",
    status_code=202,
    responses={
        200: {
            "description": "A regrade of this exercise is already running: its progress.",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **errors(401, 403, 404, 422),
    },
)
def regrade(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    queue: QueueDep,
    place: PlaceDep,
) -> JSONResponse:
    """Re-grade every stored submission of the exercise in this course's offering as a job on
    the queue (202 at once); other offerings' and courses' submissions are not touched.

    The answer names the queue's job (`job`, followed at `GET /api/jobs/{job}`). If a regrade
    of this exercise is already running in this offering the answer is 200 with its progress.
    """
    find_exercise(course, slug)
    launch = launcher(session, course.slug, user.id, queue, place)
    job, started = start_regrade(
        session=session, slug=slug, instructor=user, launch=launch, place=place
    )
    view = with_task(
        session, job_view(job, slug, now=database_now(session)), job, _base(request, place)
    )
    return JSONResponse(view, status_code=202 if started else 200)


def _base(request: Request, place: Place) -> str:
    """'/courses/{c}' when the request came through a course's URL, then '/offerings/{id}'."""
    return str(request.scope.get(SCOPE_BASE, "")) + place.prefix


def launcher(
    session: Session, course_slug: str | None, by: int, queue: JobQueue, place: Place
) -> Launcher:
    """Queue the regrade as a job of this offering (whose staff may follow it)."""
    offering_id, _ = offering_id_here(session=session, place=place)
    return on_queue(
        session=session, queue=queue, course_slug=course_slug, offering_id=offering_id, by=by
    )


def with_task(
    session: Session, view: dict[str, Any], job: RegradeJob | None, base: str
) -> dict[str, Any]:
    """The progress, with the queue's job that runs it and where to follow it (under `base`:
    the course's and offering's prefix the request came through)."""
    task = task_of(session=session, regrade=job)
    if task is not None:
        view["job"] = task.id
        view["job_url"] = f"{base}/api/jobs/{task.id}"
        view["job_state"] = task.state
        if task.state == "failed":
            view["error"] = task.error
    return view


@router.get("/api/exercises/{slug}/regrade", responses=errors(401, 403, 404, 422))
def regrade_status(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Progress of this offering's newest regrade: status, done/total, changed scores, failures."""
    find_exercise(course, slug)
    job = latest_job(session=session, slug=slug, place=place)
    return with_task(
        session, job_view(job, slug, now=database_now(session)), job, _base(request, place)
    )


@router.post("/instructor/exercises/{slug}/regrade", include_in_schema=False)
def regrade_form(
    slug: str,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    queue: QueueDep,
    place: PlaceDep,
) -> Response:
    """The analytics page's button without JavaScript: start, then show the page again."""
    find_exercise(course, slug)
    launch = launcher(session, course.slug, user.id, queue, place)
    start_regrade(session=session, slug=slug, instructor=user, launch=launch, place=place)
    back = f"{place.prefix}/instructor/exercises/{slug}?regrade=started"
    return RedirectResponse(back, status_code=303)


STAFF_KINDS = ("regrade",)  # jobs staff start in an offering (a draft's check is its editors')


@router.get("/api/jobs/{job_id}", responses=errors(401, 403, 404, 422))
def job_status(
    job_id: RowId, session: SessionDep, course: CourseDep, user: InstructorUser, place: PlaceDep
) -> dict[str, Any]:
    """A job an instructor of this offering started: its state, progress (`result`) and error.

    Another offering's or course's job is answered as if it did not exist (404).
    """
    job = session.get(Job, job_id)
    if (
        job is None
        or job.kind not in STAFF_KINDS
        or job.course_slug != course.slug
        or not row_here(session, job.offering_id, place)
    ):
        raise DomainError(404, "There is no such job here.")
    return tasks.view(job)
