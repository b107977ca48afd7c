"""Per-exercise analytics pages (with the regrade button) and their JSON twin."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.content.service import CourseDep
from app.db import database_now
from app.instructor.analytics import exercise_stats, summaries
from app.instructor.charts import submissions_chart
from app.instructor.clusters.service import exercise_clusters
from app.instructor.regrade import job_view, latest_job
from app.instructor.web import find_exercise, page
from app.offerings.access import StaffUser
from app.offerings.place import Place, PlaceDep
from app.progress.hints import reveal_counts
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


@router.get("/instructor/exercises", include_in_schema=False)
def exercises_page(
    request: Request, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> Response:
    """Every exercise with its headline numbers, drafts included and marked."""
    found = summaries(session=session, slugs=[ex.meta.slug for ex in course.exercises], place=place)
    return page(
        request,
        "instructor/exercises.html",
        user,
        exercises=course.exercises,
        summaries=found,
    )


@router.get("/instructor/exercises/{slug}", include_in_schema=False)
def exercise_page(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """Attempts, solve rate, time to solve, verdicts, misconceptions, failing tests, a chart."""
    exercise = find_exercise(course, slug)
    stats = exercise_stats(session=session, slug=slug, place=place)
    return page(
        request,
        "instructor/exercise.html",
        user,
        exercise=exercise,
        stats=stats,
        chart=submissions_chart(stats.timeline, stats.bucket),
        regrade=job_view(
            latest_job(session=session, slug=slug, place=place), slug, now=database_now(session)
        ),
        started=request.query_params.get("regrade") == "started",
        hint_reveals=_hint_reveals(session, exercise, place),
        clusters=exercise_clusters(session=session, slug=slug, place=place),
    )


def _hint_reveals(session: Any, exercise: Any, place: Place) -> list[tuple[int, int]]:
    """(hint number, the offering's students who opened it) for every hint, zeros included."""
    counts = reveal_counts(session=session, exercise_slug=exercise.meta.slug, place=place)
    return [(n, counts.get(n, 0)) for n in range(1, len(exercise.hints) + 1)]


@router.get("/api/instructor/exercises/{slug}/analytics", responses=errors(401, 403, 404, 422))
def exercise_analytics(
    slug: str, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> dict[str, Any]:
    """The analytics page's numbers as JSON (times in seconds)."""
    find_exercise(course, slug)
    stats = exercise_stats(session=session, slug=slug, place=place)
    seconds = stats.median_time_to_solve
    return {
        "exercise": slug,
        "attempts": stats.attempts,
        "students": stats.students,
        "solvers": stats.solvers,
        "solve_rate": stats.solve_rate,
        "late": stats.late,
        "median_attempts_to_solve": stats.median_attempts_to_solve,
        "median_seconds_to_solve": seconds.total_seconds() if seconds is not None else None,
        "verdicts": dict(stats.verdicts),
        "misconceptions": [
            {"id": mid, "title": title, "count": n} for mid, title, n in stats.misconceptions
        ],
        "failing_tests": [{"name": name, "count": n} for name, n in stats.failing_tests],
        "timeline": [
            {"start": start.isoformat(), "submissions": total, "solving": solving}
            for start, total, solving in stats.timeline
        ],
        "bucket": stats.bucket,
        "hint_reveals": [
            {"hint": n, "students": count}
            for n, count in _hint_reveals(session, find_exercise(course, slug), place)
        ],
    }
