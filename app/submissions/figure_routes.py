"""The pictures of a finished experiment's report, as SVG images its author and instructors see."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from starlette.responses import Response

from app.config import get_settings
from app.content.service import CourseDep
from app.models_base import utcnow
from app.submissions.lab_figures import FIGURES, figure
from app.submissions.service import held_from, visible_submission
from app.users.deps import CurrentUser
from app.web.api import RowId
from app.web.request_session import SessionDep

router = APIRouter(include_in_schema=False)


@router.get("/submissions/{submission_id}/figures/{name}.svg")
def lab_figure(
    submission_id: RowId, name: str, session: SessionDep, course: CourseDep, user: CurrentUser
) -> Response:
    """accuracy, loss or positions; drawn from the stored report, never by training."""
    if name not in FIGURES:
        raise HTTPException(404, f"There is no figure called '{name}': try {', '.join(FIGURES)}.")
    row = visible_submission(session=session, user=user, submission_id=submission_id)
    if row is None:
        raise HTTPException(404, "There is no submission with that id.")
    held = held_from(session=session, user=user, row=row, now=utcnow())
    if held:  # an exam's answer before the exam releases its results
        raise HTTPException(403, held)
    exercise = course.exercise(row.exercise_slug)
    metrics = (row.report or {}).get("metrics")
    if exercise is None or row.status != "done" or not isinstance(metrics, dict):
        raise HTTPException(404, "This submission has no finished experiment to draw.")
    cache_dir = get_settings().experiments_cache_path
    body = figure(name, metrics, exercise.path, cache_dir)
    if body is None:
        raise HTTPException(404, "This run has nothing to draw for that figure.")
    return Response(
        body,
        media_type="image/svg+xml",
        headers={"cache-control": "private, max-age=3600", "x-content-type-options": "nosniff"},
    )
