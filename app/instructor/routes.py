"""Instructor-only views; every route depends on InstructorUser (403 for students).

The domain's routes live in one module per concern and are gathered here, so the app
includes a single router.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.content.service import CourseDep
from app.instructor import (
    analytics_routes,
    assessment_items_routes,
    assessment_routes,
    attention_routes,
    comments_routes,
    gradebook_routes,
    grading_scheme_routes,
    item_stats_routes,
    overrides_routes,
    quiz_regrade_routes,
    regrade_requests_routes,
    regrade_routes,
    rubric_routes,
    settings_routes,
    similarity_routes,
    students_routes,
)
from app.instructor.clusters import grading_routes as cluster_grading_routes
from app.instructor.clusters import routes as clusters_routes
from app.instructor.web import page
from app.offerings.access import InstructorUser, StaffUser
from app.offerings.place import PlaceDep
from app.web.api import errors

router = APIRouter()


@router.get("/instructor", include_in_schema=False)
def instructor_home(user: StaffUser, place: PlaceDep) -> Response:
    """The instructor area starts at the gradebook."""
    return RedirectResponse(f"{place.prefix}/instructor/gradebook", status_code=303)


@router.get("/instructor/content", include_in_schema=False)
def content_problems_page(request: Request, course: CourseDep, user: InstructorUser) -> Response:
    """Files that failed to load and drafts to preview, so authors need no logs."""
    drafts = [les for les in course.lessons if les.meta.draft]
    draft_exercises = [ex for ex in course.exercises if ex.meta.draft]
    return page(
        request,
        "instructor/content.html",
        user,
        course=course,
        draft_lessons=drafts,
        draft_exercises=draft_exercises,
    )


@router.get("/api/content/problems", tags=["instructor"], responses=errors(401, 403))
def content_problems(course: CourseDep, user: InstructorUser) -> list[dict[str, Any]]:
    """Content files that failed to load, with the line when known."""
    return [{"path": p.path, "line": p.line, "message": p.message} for p in course.problems]


for _module in (
    gradebook_routes,
    analytics_routes,
    item_stats_routes,
    regrade_routes,
    quiz_regrade_routes,
    similarity_routes,
    students_routes,
    overrides_routes,
    comments_routes,
    regrade_requests_routes,
    rubric_routes,
    assessment_routes,
    settings_routes,
    grading_scheme_routes,
    assessment_items_routes,
    clusters_routes,
    cluster_grading_routes,
    attention_routes,
):
    router.include_router(_module.router)
