"""Start a regrade and follow its progress: a JSON API for scripts and the page's button."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.responses import Response

from app.content.service import CourseDep
from app.db import SessionDep, database_now
from app.instructor.regrade import job_view, latest_job, start_regrade
from app.instructor.web import find_exercise
from app.offerings.access import InstructorUser
from app.offerings.place import PlaceDep
from app.web.api import errors

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
    slug: str, session: SessionDep, course: CourseDep, user: InstructorUser
) -> JSONResponse:
    """Re-grade every stored submission of the exercise in the background (202 at once).

    If a regrade of this exercise is already running the answer is 200 with its progress.
    """
    find_exercise(course, slug)
    job, started = start_regrade(session=session, slug=slug, instructor=user)
    view = job_view(job, slug, now=database_now(session))
    return JSONResponse(view, status_code=202 if started else 200)


@router.get("/api/exercises/{slug}/regrade", responses=errors(401, 403, 404, 422))
def regrade_status(
    slug: str, session: SessionDep, course: CourseDep, user: InstructorUser
) -> dict[str, Any]:
    """Progress of the newest regrade: status, done/total, changed scores, failures."""
    find_exercise(course, slug)
    return job_view(latest_job(session=session, slug=slug), slug, now=database_now(session))


@router.post("/instructor/exercises/{slug}/regrade", include_in_schema=False)
def regrade_form(
    slug: str, session: SessionDep, course: CourseDep, user: InstructorUser, place: PlaceDep
) -> Response:
    """The analytics page's button without JavaScript: start, then show the page again."""
    find_exercise(course, slug)
    start_regrade(session=session, slug=slug, instructor=user)
    back = f"{place.prefix}/instructor/exercises/{slug}?regrade=started"
    return RedirectResponse(back, status_code=303)
