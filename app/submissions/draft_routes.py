"""Draft API: the editor saves here as the student types, and reads back on any device; the
page's course (`/courses/{course}/api/drafts/...`) keeps its own drafts."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from pydantic import BaseModel, ConfigDict, Field

from app.config import get_settings
from app.content.service import CourseDep
from app.courses.first import course_slug_of
from app.models_base import as_utc
from app.submissions import drafts
from app.users.deps import CurrentUser
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["drafts"])


class DraftIn(BaseModel):
    """Body of PUT /api/drafts/{exercise}."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="The editor's whole text.")


@router.get("/api/drafts/{exercise}", responses=errors(401, 404, 422))
def read_draft(
    exercise: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
    framework: str | None = None,
) -> dict[str, Any]:
    """Your saved code for this exercise and framework; `code` is null when nothing is saved."""
    here = course_slug_of(request.scope.get("course"))
    found, chosen = drafts.check_target(
        session=session,
        course=course,
        course_slug=here,
        user=user,
        exercise=exercise,
        framework=framework,
    )
    row = drafts.get_draft(
        session=session,
        user_id=user.id,
        course_slug=here,
        exercise=found.meta.slug,
        framework=chosen,
    )
    return {
        "exercise": found.meta.slug,
        "framework": chosen,
        "code": row.code if row else None,
        "updated_at": as_utc(row.updated_at).isoformat() if row else None,
    }


@router.put("/api/drafts/{exercise}", responses=errors(401, 403, 404, 409, 413, 422))
def write_draft(
    exercise: str,
    body: Annotated[DraftIn, Body()],
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
    framework: str | None = None,
) -> dict[str, Any]:
    """Replace your saved code for this exercise and framework."""
    here = course_slug_of(request.scope.get("course"))
    found, chosen = drafts.check_target(
        session=session,
        course=course,
        course_slug=here,
        user=user,
        exercise=exercise,
        framework=framework,
    )
    drafts.check_size(body.code, get_settings().max_code_bytes)
    row = drafts.save_draft(
        session=session,
        user_id=user.id,
        course_slug=here,
        exercise=found.meta.slug,
        framework=chosen,
        code=body.code,
    )
    return {
        "exercise": found.meta.slug,
        "framework": chosen,
        "updated_at": as_utc(row.updated_at).isoformat(),
    }
