"""Prometheus-format metrics: what an operator (and the benchmark) needs to see the pool."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse
from sqlalchemy import func, select

from app.db import SessionDep
from app.grading.service import current_grader
from app.submissions.models import Submission

router = APIRouter()


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request, session: SessionDep) -> PlainTextResponse:
    """Queue depth, jobs by status, verdict counts and ready interpreters per framework."""
    lines = [
        "# TYPE course_queue_depth gauge",
        f"course_queue_depth {request.app.state.queue.depth()}",
        "# TYPE course_submissions gauge",
    ]
    for status, count in session.execute(
        select(Submission.status, func.count()).group_by(Submission.status)
    ):
        lines.append(f'course_submissions{{status="{status}"}} {count}')
    lines.append("# TYPE course_verdicts_total counter")
    for verdict, count in session.execute(
        select(Submission.verdict, func.count())
        .where(Submission.verdict.is_not(None))
        .group_by(Submission.verdict)
    ):
        lines.append(f'course_verdicts_total{{verdict="{verdict}"}} {count}')
    lines.append("# TYPE course_pool_ready gauge")
    grader = current_grader()
    for framework, ready in (grader.pool.sizes() if grader else {}).items():
        lines.append(f'course_pool_ready{{framework="{framework}"}} {ready}')
    return PlainTextResponse("\n".join(lines) + "\n", media_type="text/plain; version=0.0.4")
