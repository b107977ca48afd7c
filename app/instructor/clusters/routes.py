"""The clusters page of an exercise and its JSON twin (staff of the offering only)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.content.service import CourseDep
from app.instructor.clusters.service import cluster_json, exercise_clusters
from app.instructor.web import find_exercise, page
from app.offerings.access import StaffUser
from app.offerings.place import PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


@router.get("/instructor/exercises/{slug}/clusters", include_in_schema=False)
def clusters_page(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """Wrong answers grouped by behaviour: who, one program and the others diffed, a heatmap."""
    exercise = find_exercise(course, slug)
    found = exercise_clusters(session=session, slug=slug, place=place)
    return page(
        request, "instructor/clusters.html", user, exercise=exercise, found=found, refused=None
    )


@router.get("/api/instructor/exercises/{slug}/clusters", responses=errors(401, 403, 404, 422))
def clusters(
    slug: str, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> list[dict[str, Any]]:
    """Wrong submissions grouped by behaviour signature, the most students first."""
    find_exercise(course, slug)
    found = exercise_clusters(session=session, slug=slug, place=place)
    return [cluster_json(view, solved=found.solved) for view in found.clusters]
