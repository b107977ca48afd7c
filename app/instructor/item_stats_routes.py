"""Quiz item statistics: a page per quiz, its CSV, and the same numbers as JSON."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import Response

from app.content.loader import Course, Lesson
from app.content.service import CourseDep
from app.instructor import item_csv
from app.instructor.item_stats import MIN_FOR_FLAGS, QuizStats, latest_attempts, quiz_stats
from app.instructor.web import page
from app.offerings.access import StaffMember, StaffUser
from app.offerings.models import OfferingRole
from app.offerings.place import Place, PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


def _quiz_lesson(course: Course, slug: str) -> Lesson:
    lesson = course.lesson(slug)
    if lesson is None or not lesson.meta.quiz:
        raise HTTPException(404, f"There is no quiz in a lesson called '{slug}'.")
    return lesson


def _stats(session: Any, lesson: Lesson, place: Place) -> QuizStats:
    slug = lesson.meta.slug
    return quiz_stats(
        slug, lesson.meta.quiz, latest_attempts(session=session, lesson_slug=slug, place=place)
    )


@router.get("/instructor/quizzes", include_in_schema=False)
def quizzes_page(
    request: Request, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> Response:
    """Every quiz with its students, reliability and flagged questions."""
    rows = [(les, _stats(session, les, place)) for les in course.lessons if les.meta.quiz]
    return page(request, "instructor/quizzes.html", user, rows=rows, min_for_flags=MIN_FOR_FLAGS)


@router.get("/instructor/quizzes/{slug}", include_in_schema=False)
def quiz_page(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    member: StaffMember,
    place: PlaceDep,
    regraded: int | None = None,
    changed: int = 0,
    exam: int = 0,
) -> Response:
    """One quiz's questions: difficulty, discrimination, choices picked, common wrong answers;
    for instructors, the button that regrades it after its answer key changed."""
    lesson = _quiz_lesson(course, slug)
    return page(
        request,
        "instructor/quiz.html",
        member.user,
        can_regrade=member.role == OfferingRole.instructor,
        regraded=regraded,
        changed=changed,
        exam_changed=exam,
        lesson=lesson,
        stats=_stats(session, lesson, place),
        min_for_flags=MIN_FOR_FLAGS,
    )


CSV_HEADER = [
    "question",
    "type",
    "answered",
    "difficulty",
    "discrimination",
    "upper_lower",
    "choices picked",
    "common wrong answers",
    "flags",
    "quiz kr20",
]


def stats_csv(stats: QuizStats) -> str:
    """One row per question; choice counts and common wrong answers as 'text: count' lists."""
    rows = (
        [
            item.id,
            item.type,
            item.answered,
            item_csv.number(item.difficulty),
            item_csv.number(item.discrimination),
            item_csv.number(item.upper_lower),
            *item_csv.answer_cells(item),
            " | ".join(item.flags),
            item_csv.number(stats.kr20),
        ]
        for item in stats.items
    )
    return item_csv.table(CSV_HEADER, rows)


@router.get(
    "/instructor/quizzes/{slug}/items.csv",
    responses={200: {"content": {"text/csv": {}}}, **errors(401, 403, 404, 422, html=True)},
)
def quiz_csv(
    slug: str, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> Response:
    """The quiz's item statistics as CSV for a spreadsheet (students' latest attempts)."""
    stats = _stats(session, _quiz_lesson(course, slug), place)
    return Response(
        stats_csv(stats),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="quiz-{slug}-items.csv"'},
    )


@router.get("/api/instructor/quizzes/{slug}/items", responses=errors(401, 403, 404, 422))
def quiz_items(
    slug: str, session: SessionDep, course: CourseDep, user: StaffUser, place: PlaceDep
) -> dict[str, Any]:
    """The same statistics as JSON (shares 0 to 1; null where a number is undefined)."""
    return asdict(_stats(session, _quiz_lesson(course, slug), place))
