"""The courses page and its refresh: a course's own staff only, so it sits above the editor role."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.authoring.editors import is_editor
from app.courses.routes import course_item, problems_json, refresh_here
from app.courses.service import request_registry
from app.errors import DomainError
from app.offerings.standing import instructs_course
from app.users.deps import CurrentUser
from app.users.models import User
from app.web.api import errors
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter()
ADMIN_PAGE = "/admin/courses"
NOT_COURSE_STAFF = (
    "Only an instructor of an offering of this course, one of its editors or a site "
    "administrator may refresh it."
)
NO_COURSE_OF_YOURS = (
    "This page is for the instructors and editors of a course (and site administrators)."
)


def may_refresh(session: Session, user: User, slug: str) -> bool:
    """Staff of the URL's course, not the request's: its editors and instructors, or an admin."""
    return is_editor(session=session, user=user, course_slug=slug) or instructs_course(
        session=session, user=user, course_slug=slug
    )


def _refreshable(request: Request, session: Session, user: User, slug: str) -> str:
    """The course's slug, when it exists (404) and the person may refresh it (403)."""
    if request_registry(request).source(slug) is None:
        raise HTTPException(404, f"There is no course called '{slug}'.")
    if not may_refresh(session, user, slug):
        raise DomainError(403, NOT_COURSE_STAFF)
    return slug


@router.post(
    "/api/courses/{course}/refresh", tags=["courses"], responses=errors(401, 403, 404, 422)
)
def api_refresh(
    course: str, request: Request, session: SessionDep, user: CurrentUser
) -> dict[str, Any]:
    """Re-read a course from disk; refused (the last good version serves on) on new problems."""
    result = refresh_here(request, session, _refreshable(request, session, user, course))
    return {
        "slug": result.slug,
        "applied": result.applied,
        "version": result.version,
        "message": result.message,
        "problems": problems_json(result.problems),
    }


@router.get(ADMIN_PAGE, include_in_schema=False)
def admin_page(
    request: Request, session: SessionDep, user: CurrentUser, done: str = ""
) -> Response:
    """The courses this person may refresh (no button, folder or problem of any other course)."""
    registry = request_registry(request)
    mine = [e for e in registry.entries() if may_refresh(session, user, e.slug)]
    if not mine:
        raise DomainError(403, NO_COURSE_OF_YOURS)
    return render(
        request,
        "courses/admin.html",
        user=user,
        courses=[course_item(registry, e, instructor=True) for e in mine],
        registry_problems=registry.problems,
        done=done,
    )


@router.post(ADMIN_PAGE + "/{course}/refresh", include_in_schema=False)
def admin_refresh(
    course: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """The refresh button: refresh, then show the page with what happened."""
    result = refresh_here(request, session, _refreshable(request, session, user, course))
    outcome = "applied" if result.applied else "refused"
    return RedirectResponse(f"{ADMIN_PAGE}?done={outcome}:{course}", status_code=303)
