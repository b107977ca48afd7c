"""The gradebook as a page, as CSV for spreadsheets, and as JSON for scripts."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import Response

from app.instructor.course_grade import course_grade, scheme_for
from app.instructor.gradebook import (
    ExerciseCell,
    Gradebook,
    QuizCell,
    Row,
    build_gradebook,
    valid_sort,
)
from app.instructor.gradebook_csv import gradebook_csv, student_ids
from app.instructor.gradebook_html import table_body
from app.instructor.web import page
from app.models_base import as_utc
from app.offerings.access import StaffUser, offering_id_here
from app.offerings.place import Place, PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep
from app.web.templating import staff_base

router = APIRouter(tags=["instructor"])


def _book(
    session: SessionDep, place: Place, student: str, exercise: str, sort: str, order: str
) -> Gradebook:
    course = place.course
    if exercise and course.exercise(exercise) is None:
        raise HTTPException(404, f"There is no exercise called '{exercise}'.")
    book = build_gradebook(
        session=session,
        course=course,
        place=place,
        student=student[:200],
        exercise=exercise,
        sort=sort,
        descending=order == "desc",
    )
    if not valid_sort(book, sort):
        raise HTTPException(422, f"Cannot sort by '{sort[:60]}': it is not a column.")
    return book


@router.get("/instructor/gradebook", include_in_schema=False)
def gradebook_page(
    request: Request,
    session: SessionDep,
    place: PlaceDep,
    user: StaffUser,
    student: str = "",
    exercise: str = "",
    sort: str = "student",
    order: str = "asc",
) -> Response:
    """Every student's best score, attempts and solve time per exercise, quiz scores, totals."""
    book = _book(session, place, student, exercise, sort, order)
    scheme = scheme_for(
        session=session, offering_id=offering_id_here(session=session, place=place)[0]
    )
    return page(
        request,
        "instructor/gradebook.html",
        user,
        book=book,
        body=table_body(book, base=staff_base(request), scheme=scheme),
        student=student,
        exercise=exercise,
        sort=sort,
        order=order,
        all_exercises=place.course.exercises,
    )


@router.get(
    "/instructor/gradebook.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}, **errors(401, 403, 404, 422, html=True)},
)
def gradebook_download(
    session: SessionDep,
    place: PlaceDep,
    user: StaffUser,
    student: str = "",
    exercise: str = "",
    sort: str = "student",
    order: str = "asc",
) -> Response:
    """The same table as CSV (scores 0 to 1, times in UTC); safe to open in a spreadsheet."""
    book = _book(session, place, student, exercise, sort, order)
    scheme = scheme_for(
        session=session, offering_id=offering_id_here(session=session, place=place)[0]
    )
    ids = student_ids(session=session, user_ids=[r.user_id for r in book.rows])
    return Response(
        gradebook_csv(book, scheme=scheme, student_ids=ids),
        media_type="text/csv; charset=utf-8",
        headers={
            "content-disposition": 'attachment; filename="gradebook.csv"',
            "cache-control": "no-store",
        },
    )


@router.get("/api/instructor/gradebook", responses=errors(401, 403, 404, 422))
def gradebook_json(
    session: SessionDep,
    place: PlaceDep,
    user: StaffUser,
    student: str = "",
    exercise: str = "",
    sort: str = "student",
    order: str = "asc",
) -> dict[str, Any]:
    """The gradebook as JSON: one entry per student with per-exercise and per-quiz cells."""
    book = _book(session, place, student, exercise, sort, order)
    scheme = scheme_for(
        session=session, offering_id=offering_id_here(session=session, place=place)[0]
    )
    ids = student_ids(session=session, user_ids=[r.user_id for r in book.rows])
    return {
        "exercises": [c.slug for c in book.shown_exercises],
        "quizzes": [c.slug for c in book.shown_quizzes],
        "grading_scheme": scheme.as_json(),
        "students": [
            _row_json(book, row)
            | {
                "student_id": ids.get(row.user_id),
                "course_grade": course_grade(book, row, scheme).as_json(),
            }
            for row in book.rows
        ],
    }


def _row_json(book: Gradebook, row: Row) -> dict[str, Any]:
    exercises: dict[str, Any] = {}
    for col in book.shown_exercises:
        cell = row.exercises.get(col.slug, ExerciseCell())
        solved_at = as_utc(cell.solved_at).isoformat() if cell.solved_at else None
        exercises[col.slug] = {
            "best": cell.best,
            "attempts": cell.attempts,
            "solved_at": solved_at,
            "late": cell.late,
            "raw": cell.raw,
            "late_penalty": cell.penalty,
            "practice": col.practice,
            "awaiting_grading": cell.awaiting,
        }
    quizzes: dict[str, Any] = {}
    for col in book.shown_quizzes:
        quiz = row.quizzes.get(col.slug, QuizCell())
        quizzes[col.slug] = {
            "best": quiz.best,
            "attempts": quiz.attempts,
            "late": quiz.late,
            "raw": quiz.raw,
            "late_penalty": quiz.penalty,
        }
    return {
        "id": row.user_id,
        "name": row.name,
        "email": row.email,
        "exercises": exercises,
        "quizzes": quizzes,
        "solved": row.solved,
        "exercise_points": row.exercise_points,
        "quiz_points": row.quiz_points,
        "total": row.total(book.items),
    }
