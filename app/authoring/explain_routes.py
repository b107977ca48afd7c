"""POST .../clusters/{id}/misconception: "Explain this mistake", for an instructor of the
offering who is also an editor of its course (it writes the course's content)."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import BaseModel, Field
from starlette.responses import Response

from app.authoring.editors import require_editor
from app.authoring.explain import Explained, ExplainRefused, explain
from app.content.service import CourseDep
from app.courses.routes import refresh_here
from app.courses.service import request_registry
from app.errors import DomainError
from app.grading.service import get_grader
from app.instructor.clusters.service import exercise_clusters
from app.instructor.web import find_exercise, page
from app.offerings.access import InstructorUser
from app.offerings.place import Place, PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


class Explanation(BaseModel):
    """What the students of the cluster will read."""

    title: str = Field(min_length=1, max_length=120, description="The mistake's short name.")
    hint: str = Field(min_length=1, max_length=2000, description="What to tell its students.")


def _explain(
    request: Request,
    session: Any,
    course: Any,
    user: Any,
    slug: str,
    key: str,
    title: str,
    hint: str,
    place: Place,
) -> Explained:
    """Run the explanation for either route; 404 when there is no such cluster."""
    exercise = find_exercise(course, slug)
    registry = request_registry(request)
    course_slug = request.scope.get("course") or registry.first_slug
    require_editor(session=session, user=user, course_slug=course_slug)
    source = registry.source(course_slug)
    assert source is not None  # the request's course is served

    def refresh() -> list[str]:
        result = refresh_here(request, session, course_slug)
        return [] if result.applied else [p.message for p in result.problems]

    done = explain(
        session=session,
        grader=get_grader(),
        source=source,
        content=course,
        exercise=exercise,
        key=key,
        title=title,
        hint=hint,
        instructor=user,
        refresh=refresh,
        place=place,
    )
    if done is None:
        raise HTTPException(404, f"There is no group '{key}' of wrong answers to '{slug}'.")
    return done


@router.post(
    "/api/instructor/exercises/{slug}/clusters/{key}/misconception",
    status_code=201,
    responses=errors(401, 403, 404, 409, 422),
)
def explain_cluster(
    slug: str,
    key: str,
    body: Explanation,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    place: PlaceDep,
) -> Any:
    """Declare the cluster's mistake with its representative program; 409 with the check's
    problems, nothing written, when the check fails."""
    try:
        done = _explain(request, session, course, user, slug, key, body.title, body.hint, place)
    except ExplainRefused as refused:
        return JSONResponse({"detail": str(refused), "problems": refused.problems}, 409)
    return {"mistake": done.mistake, "regraded": done.regraded}


@router.post("/instructor/exercises/{slug}/clusters/{key}/misconception", include_in_schema=False)
def explain_form(
    slug: str,
    key: str,
    title: Annotated[str, Form(min_length=1, max_length=120)],
    hint: Annotated[str, Form(min_length=1, max_length=2000)],
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    place: PlaceDep,
) -> Response:
    """The clusters page's form without JavaScript: explain, then show the page again."""
    back = f"{place.prefix}/instructor/exercises/{slug}/clusters"
    try:
        done = _explain(request, session, course, user, slug, key, title, hint, place)
    except (ExplainRefused, DomainError) as refused:
        problems = refused.problems if isinstance(refused, ExplainRefused) else [refused.message]
        found = exercise_clusters(session=session, slug=slug, place=place)
        exercise = find_exercise(course, slug)
        return page(
            request,
            "instructor/clusters.html",
            user,
            status_code=409 if isinstance(refused, ExplainRefused) else refused.status,
            exercise=exercise,
            found=found,
            refused=(key, problems),
        )
    query = urlencode({"explained": done.mistake, "regraded": done.regraded})
    return RedirectResponse(f"{back}?{query}", status_code=303)
