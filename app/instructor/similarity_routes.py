"""Similar submissions per exercise: ranked pairs, one pair side by side, and JSON."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import Response

from app.content.loader import Exercise
from app.content.service import CourseDep
from app.instructor.similarity import Comparison, compare_exercise, segments
from app.instructor.web import find_exercise, page
from app.offerings.access import StaffUser
from app.offerings.place import Place, PlaceDep
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])
SHOWN = 50  # pairs listed per framework on the page


def shared_code(exercise: Exercise) -> dict[str, list[str]]:
    """What every student starts from or is shown: starter code and the model solution."""
    frameworks = set(exercise.starters) | set(exercise.solutions)
    return {
        fw: [code for code in (exercise.starters.get(fw), exercise.solutions.get(fw)) if code]
        for fw in frameworks
    }


def _compare(session: Any, exercise: Exercise, place: Place) -> Comparison:
    return compare_exercise(
        session=session, slug=exercise.meta.slug, shared_code=shared_code(exercise), place=place
    )


@router.get("/instructor/exercises/{slug}/similar", include_in_schema=False)
def similar_page(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """The most similar pairs of final submissions, per framework, with the caveat."""
    exercise = find_exercise(course, slug)
    return page(
        request,
        "instructor/similar.html",
        user,
        exercise=exercise,
        comparison=_compare(session, exercise, place),
        shown=SHOWN,
    )


@router.get("/instructor/exercises/{slug}/similar/{a}/{b}", include_in_schema=False)
def pair_page(
    slug: str,
    a: RowId,
    b: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """Two final submissions side by side, the shared regions marked."""
    exercise = find_exercise(course, slug)
    comparison = _compare(session, exercise, place)
    pair = next(
        (
            p
            for pairs in comparison.pairs.values()
            for p in pairs
            if {p.a.submission_id, p.b.submission_id} == {a, b}
        ),
        None,
    )
    if pair is None:
        raise HTTPException(
            404, "These two are not a compared pair of final submissions of this exercise."
        )
    return page(
        request,
        "instructor/similar_pair.html",
        user,
        exercise=exercise,
        pair=pair,
        left=segments(pair.a.code, pair.slices_a),
        right=segments(pair.b.code, pair.slices_b),
    )


@router.get("/api/instructor/exercises/{slug}/similarity", responses=errors(401, 403, 404, 422))
def similarity(
    slug: str, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> list[dict[str, Any]]:
    """Pairs of final submissions, most similar first (score 0 to 1; leads, not verdicts)."""
    comparison = _compare(session, find_exercise(course, slug), place)
    pairs = [p for group in comparison.pairs.values() for p in group]
    pairs.sort(key=lambda p: -p.score)
    return [
        {"a": p.a.submission_id, "b": p.b.submission_id, "score": round(p.score, 4)} for p in pairs
    ]
