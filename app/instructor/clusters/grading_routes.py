"""Grade a cluster together from the clusters page, and its JSON twin (staff of the offering)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.content.service import CourseDep
from app.instructor.clusters.grading import NO_CLUSTER, grade_cluster
from app.instructor.rubric_routes import RubricIn, rubric_of
from app.offerings.access import StaffUser
from app.offerings.place import PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


@router.post(
    "/api/instructor/exercises/{slug}/clusters/{key}/rubric",
    responses=errors(401, 403, 404, 422),
)
def grade_cluster_api(
    slug: str,
    key: str,
    body: Annotated[RubricIn, Body()],
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Apply one rubric grading and comment to each member submission of the cluster (each
    student's latest one in it): each gets its own rubric grade, which its student sees."""
    exercise, rubric = rubric_of(course, slug)
    graded = grade_cluster(
        session=session,
        slug=slug,
        key=key,
        rubric=rubric,
        applied=body.applied,
        comment=body.comment.strip(),
        grader=user,
        place=place,
        lab=exercise.meta.entry.kind == "experiment",
    )
    if graded is None:
        raise HTTPException(404, NO_CLUSTER)
    return {"cluster": key, "graded": graded}


@router.post("/instructor/exercises/{slug}/clusters/{key}/rubric", include_in_schema=False)
async def grade_cluster_form(
    slug: str,
    key: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """The clusters page's form: grade the group, then show the page again, saying how many."""
    exercise, rubric = rubric_of(course, slug)
    form = await request.form()
    graded = grade_cluster(
        session=session,
        slug=slug,
        key=key,
        rubric=rubric,
        applied=[str(v) for v in form.getlist("item")],
        comment=str(form.get("comment", "")).strip()[:4000],
        grader=user,
        place=place,
        lab=exercise.meta.entry.kind == "experiment",
    )
    if graded is None:
        raise HTTPException(404, NO_CLUSTER)
    back = f"{place.prefix}/instructor/exercises/{slug}/clusters"
    return RedirectResponse(f"{back}?graded={len(graded)}#cluster-{key}", status_code=303)
