"""Submission API: create, read, and follow live status; thin, the rules are in service.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, HTTPException, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from app.config import get_settings
from app.content.service import CourseDep
from app.courses.service import content_of, course_or_404
from app.db import session_factory
from app.jobs.deps import QueueDep
from app.models_base import utcnow
from app.offerings.place import PlaceDep
from app.submissions import (
    draft_routes,
    figure_routes,
    intake,
    regrade_request_routes,
    service,
    views,
    writeup_routes,
)
from app.submissions.models import Submission
from app.submissions.presenter import Viewer, submission_json
from app.submissions.standing import standing_of
from app.users.deps import CurrentUser
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["submissions"])
PROGRESS_SECONDS = 0.5  # how often a training experiment's stream sends its step and loss
# The draft API and the result figures ride along on this router.
router.include_router(draft_routes.router)
router.include_router(figure_routes.router)
router.include_router(regrade_request_routes.router)
router.include_router(writeup_routes.router)


class SubmissionIn(BaseModel):
    """Body of POST /api/submissions."""

    model_config = ConfigDict(extra="forbid")

    exercise: str = Field(max_length=100, description="Exercise slug.")
    course: str | None = Field(
        default=None,
        max_length=64,
        description="Slug of the exercise's course (GET /api/courses); default: the first course.",
    )
    code: str = Field(description="The Python source to grade.")
    framework: str | None = Field(default=None, description="numpy, torch or jax.")
    mode: str = Field(default="submit", description="submit (all tests) or run (visible only).")
    client_id: str | None = Field(
        default=None,
        max_length=intake.MAX_KEY_CHARS,
        description="One value per click: a repeat within 30 s returns the same submission.",
    )
    writeup: str | None = Field(
        default=None,
        max_length=writeup_routes.MAX_WRITEUP_CHARS,
        description=(
            "A lab only: what you found, graded by a person with the lab's rubric (its score "
            "counts once they have)."
        ),
    )


@router.post("/api/submissions", status_code=202, responses=errors(401, 403, 404, 413, 422, 429))
def create(
    body: Annotated[SubmissionIn, Body()],
    request: Request,
    session: SessionDep,
    course: CourseDep,
    place: PlaceDep,
    user: CurrentUser,
    queue: QueueDep,
    idempotency_key: Annotated[str | None, Header(max_length=intake.MAX_KEY_CHARS)] = None,
) -> JSONResponse:
    """Store the submission, then queue it; answers before grading starts.

    Send a fresh `Idempotency-Key` header (or `client_id`) per click: a repeat of the same
    request within 30 s answers with the first submission instead of making another.
    """
    if body.course is not None:
        course = course_or_404(request, body.course)
    found = course.exercise(body.exercise)
    if body.writeup is not None and found is not None and found.meta.entry.kind != "experiment":
        raise HTTPException(422, writeup_routes.NOT_A_LAB)
    accepted = intake.accept(
        request=request,
        session=session,
        course=course,
        course_slug=body.course,
        user=user,
        exercise=body.exercise,
        code=body.code,
        framework=body.framework,
        mode=body.mode,
        key=idempotency_key or body.client_id,
        place=place,
    )
    row = accepted.row
    headers = {"idempotent-replayed": "true"} if accepted.repeated else {}
    if not accepted.repeated:
        if body.writeup is not None and body.writeup.strip():
            row.writeup = body.writeup.strip()
            session.commit()  # before the job: the grader never reads it, a person does
        queue.enqueue(row.id)
    return JSONResponse({"id": row.id, "status": row.status}, status_code=202, headers=headers)


@router.get("/api/submissions", responses=errors(401, 422))
def list_submissions(
    session: SessionDep,
    user: CurrentUser,
    exercise: str | None = None,
    limit: Annotated[int, Query(ge=1, le=views.MAX_LISTED)] = 50,
) -> list[dict[str, Any]]:
    """Your own submissions (of one exercise when `exercise` is given), newest first."""
    return views.list_own(session=session, user_id=user.id, exercise=exercise, limit=limit)


def _visible(session: Any, user: Any, submission_id: int) -> Submission:
    row = service.visible_submission(session=session, user=user, submission_id=submission_id)
    if row is None:
        raise HTTPException(404, "There is no submission with that id.")
    held = service.held_from(session=session, user=user, row=row, now=utcnow())
    if held:
        raise HTTPException(403, held)
    return row


def _viewer(session: Any, course: Any, user: Any, row: Submission) -> Viewer:
    """Staff of the row's offering see hidden tests whole; a student as the exercise allows."""
    if service.staff_view(session=session, user=user, row=row):
        return Viewer(staff=True)
    return Viewer(
        hidden_open=service.hidden_tests_open(
            session=session, course=course, user=user, row=row, now=utcnow()
        )
    )


@router.get("/api/submissions/{submission_id}", responses=errors(401, 404, 422))
def read(
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
) -> dict[str, Any]:
    """One submission with its report (hidden tests opaque to students until the exercise
    allows them: its `hidden_tests` setting)."""
    row = _visible(session, user, submission_id)
    course = content_of(request, row.course_slug, course)  # the row's own course
    viewer = _viewer(session, course, user, row)
    found = course.exercise(row.exercise_slug)
    meta = None if found is None else found.meta
    standing = standing_of(
        session=session,
        row=row,
        content_due=None if meta is None else meta.due,
        rubric=None if meta is None else meta.rubric,
        lab=meta is not None and meta.entry.kind == "experiment",
    )
    return submission_json(row, viewer=viewer) | standing.as_json() | {"writeup": row.writeup}


@router.post(
    "/api/submissions/{submission_id}/stop",
    status_code=202,
    responses=errors(400, 401, 403, 404, 409, 422),
)
def stop(
    submission_id: RowId, session: SessionDep, course: CourseDep, user: CurrentUser
) -> dict[str, Any]:
    """Stop a queued or running experiment; its report then says it was stopped."""
    was = service.stop_experiment(
        session=session, course=course, user=user, submission_id=submission_id
    )
    return {"id": submission_id, "status": was, "stopping": True}


@router.get(
    "/api/submissions/{submission_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}, **errors(401, 404, 422)},
)
def events(
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: CurrentUser,
) -> StreamingResponse:
    """Server-Sent Events: one event per status change, ending with the final report.

    A reconnecting browser gets the current status first, so a stream cut by a restart resumes.
    A stream ends after `sse_stream_seconds` (the browser reconnects), so a restart never waits
    long.
    """
    from app.jobs.status import watch  # workers elsewhere announce via Redis

    row = _visible(session, user, submission_id)
    course = content_of(request, row.course_slug, course)  # the row's own course
    viewer = _viewer(session, course, user, row)
    session.close()  # the stream reads with short sessions of its own; free this connection now

    async def stream() -> AsyncIterator[str]:
        last: tuple[str, str] | None = None
        ends = asyncio.get_running_loop().time() + get_settings().sse_stream_seconds
        async with watch(request.app, submission_id) as wait:
            while True:
                view = await asyncio.to_thread(_load_view, submission_id, viewer)
                if view is None:
                    return
                seen = (view["status"], json.dumps(view.get("progress")))
                if seen != last:
                    last = seen
                    yield f"event: status\ndata: {json.dumps(view)}\n\n"
                if view["status"] == "done":
                    return
                if asyncio.get_running_loop().time() > ends:
                    yield "retry: 1000\n\n"
                    return
                if "progress" in view:  # an experiment training: its step and loss move on
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wait(), PROGRESS_SECONDS)
                else:
                    await wait()

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


def _load_view(submission_id: int, viewer: Viewer) -> dict[str, Any] | None:
    with session_factory()() as session:
        row = session.get(Submission, submission_id)
        return None if row is None else submission_json(row, viewer=viewer)
