"""An assessment's item statistics as CSV and JSON, for instructors and teaching assistants.

The table itself is on the assessment's page (assessment_routes); these give the same numbers
to a spreadsheet or a script. Under `/offerings/{id}/...` they count that offering's students.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from starlette.responses import Response

from app.assessments.routes import spec_or_404
from app.content.service import CourseDep
from app.instructor import item_csv
from app.instructor.assessment_items import AssessmentStats, stats_for
from app.offerings.access import StaffUser
from app.offerings.place import PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])

CSV_HEADER = [
    "item",
    "type",
    "part",
    "points",
    "attempts",
    "difficulty",
    "discrimination",
    "upper_lower",
    "choices picked",
    "common wrong answers",
    "flags",
    "reliability",
    "reliability method",
]


def items_csv(stats: AssessmentStats) -> str:
    """One row per item; choice counts and common wrong answers as 'text: count' lists."""
    rows = (
        [
            item.id,
            item.type,
            item.part,
            f"{item.points:g}",
            item.answered,
            item_csv.number(item.difficulty),
            item_csv.number(item.discrimination),
            item_csv.number(item.upper_lower),
            *item_csv.answer_cells(item),
            " | ".join(item.flags),
            item_csv.number(stats.reliability),
            stats.reliability_method,
        ]
        for item in stats.items
    )
    return item_csv.table(CSV_HEADER, rows)


@router.get(
    "/instructor/assessments/{slug}/items.csv",
    responses={200: {"content": {"text/csv": {}}}, **errors(401, 403, 404, 422, html=True)},
)
def assessment_items_csv(
    slug: str, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> Response:
    """The assessment's item statistics as CSV (each student's latest handed-in attempt)."""
    stats = stats_for(session=session, spec=spec_or_404(course, slug), course=course, place=place)
    return Response(
        items_csv(stats),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="assessment-{slug}-items.csv"'},
    )


@router.get("/api/instructor/assessments/{slug}/items", responses=errors(401, 403, 404, 422))
def assessment_items(
    slug: str, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> dict[str, Any]:
    """The same statistics as JSON (shares 0 to 1; null where a number is undefined)."""
    return asdict(
        stats_for(session=session, spec=spec_or_404(course, slug), course=course, place=place)
    )
