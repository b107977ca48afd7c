"""POST .../clusters/{id}/misconception: "Explain this mistake" (instructors of the offering)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.content.service import CourseDep
from app.courses.routes import refresh_here
from app.courses.service import exercises_dir_for, request_registry
from app.db import SessionDep
from app.grading.service import get_grader
from app.instructor.clusters.explain import ExplainRefused, explain
from app.instructor.web import find_exercise
from app.offerings.access import InstructorUser
from app.web.api import errors

router = APIRouter(tags=["instructor"])


class Explanation(BaseModel):
    """What the students of the cluster will read."""

    title: str = Field(min_length=1, max_length=120, description="The mistake's short name.")
    hint: str = Field(min_length=1, max_length=2000, description="What to tell its students.")


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
) -> Any:
    """Declare the cluster's mistake with its representative program; 409 with the check's
    problems, nothing written, when the check fails."""
    exercise = find_exercise(course, slug)
    course_slug = request.scope.get("course") or request_registry(request).first_slug

    def refresh() -> list[str]:
        result = refresh_here(request, session, course_slug)
        return [] if result.applied else [p.message for p in result.problems]

    try:
        done = explain(
            session=session,
            grader=get_grader(),
            exercise=exercise,
            key=key,
            title=body.title,
            hint=body.hint,
            instructor=user,
            refresh=refresh,
            exercises_dir=exercises_dir_for(course_slug),
        )
    except ExplainRefused as refused:
        return JSONResponse({"detail": str(refused), "problems": refused.problems}, 409)
    if done is None:
        raise HTTPException(404, f"There is no group '{key}' of wrong answers to '{slug}'.")
    return {"mistake": done.mistake, "regraded": done.regraded}
