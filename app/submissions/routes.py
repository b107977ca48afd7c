"""Submission API: create, read, and follow live status; thin, the rules are in service.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from app.config import get_settings
from app.content.service import CourseDep
from app.db import SessionDep, session_factory
from app.submissions import service
from app.submissions.models import Submission
from app.users.deps import CurrentUser
from app.users.models import Role

router = APIRouter(tags=["submissions"])


class SubmissionIn(BaseModel):
    """Body of POST /api/submissions."""

    model_config = ConfigDict(extra="forbid")

    exercise: str = Field(max_length=100, description="Exercise slug.")
    code: str = Field(description="The Python source to grade.")
    framework: str | None = Field(default=None, description="numpy, torch or jax.")
    mode: str = Field(default="submit", description="submit (all tests) or run (visible only).")


@router.post("/api/submissions", status_code=202)
def create(
    body: Annotated[SubmissionIn, Body()],
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
) -> JSONResponse:
    """Store the submission, then queue it; answers before grading starts."""
    try:
        row = service.create_submission(
            session=session,
            course=course,
            user=user,
            exercise=body.exercise,
            code=body.code,
            framework=body.framework,
            mode=body.mode,
            max_bytes=get_settings().max_code_bytes,
        )
    except service.SubmissionError as exc:
        raise HTTPException(exc.status, exc.message) from exc
    request.app.state.queue.enqueue(row.id)
    return JSONResponse({"id": row.id, "status": row.status}, status_code=202)


def _visible(session: Any, user: Any, submission_id: int) -> Submission:
    row = service.visible_submission(session=session, user=user, submission_id=submission_id)
    if row is None:
        raise HTTPException(404, "There is no submission with that id.")
    return row


@router.get("/api/submissions/{submission_id}")
def read(submission_id: int, session: SessionDep, user: CurrentUser) -> dict[str, Any]:
    """One submission with its report (hidden tests opaque to students)."""
    row = _visible(session, user, submission_id)
    return service.public_view(row, for_instructor=user.role == Role.instructor)


@router.get("/api/submissions/{submission_id}/events")
def events(submission_id: int, session: SessionDep, user: CurrentUser) -> StreamingResponse:
    """Server-Sent Events: one event per status change, ending with the final report."""
    _visible(session, user, submission_id)
    instructor = user.role == Role.instructor

    async def stream() -> AsyncIterator[str]:
        last = None
        while True:
            view = await asyncio.to_thread(_load_view, submission_id, instructor)
            if view is None:
                return
            if view["status"] != last:
                last = view["status"]
                yield f"event: status\ndata: {json.dumps(view)}\n\n"
            if last == "done":
                return
            await asyncio.sleep(0.05)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


def _load_view(submission_id: int, instructor: bool) -> dict[str, Any] | None:
    with session_factory()() as session:
        row = session.get(Submission, submission_id)
        return service.public_view(row, for_instructor=instructor) if row else None
