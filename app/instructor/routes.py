"""Instructor-only views; every route depends on InstructorUser."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.content.service import CourseDep
from app.users.deps import InstructorUser
from app.web.templating import render

router = APIRouter()


@router.get("/instructor/content", include_in_schema=False)
def content_problems_page(request: Request, course: CourseDep, user: InstructorUser) -> Response:
    """Content files that failed to load, so authors see them without reading logs."""
    return render(request, "instructor/content.html", user=user, course=course)


@router.get("/api/content/problems", tags=["instructor"])
def content_problems(course: CourseDep, user: InstructorUser) -> list[dict[str, Any]]:
    """Content files that failed to load, with the line when known."""
    return [{"path": p.path, "line": p.line, "message": p.message} for p in course.problems]
