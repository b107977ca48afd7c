"""Hints in steps on the exercise page: only the hints a student opened ever leave the server."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.content.loader import Exercise
from app.content.service import CourseDep
from app.courses.first import course_slug_of
from app.models_base import utcnow
from app.offerings.standing import staff_of_course
from app.progress.hints import reveal_next, revealed_count
from app.submissions.locks import lock_reason
from app.users.deps import OptionalUser
from app.users.models import User
from app.web.request_session import SessionDep

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class HintState:
    """What the page shows: the opened hints' HTML and how many there are in all."""

    total: int
    opened: tuple[str, ...]

    @property
    def more(self) -> bool:
        """Whether another hint can be opened."""
        return len(self.opened) < self.total


def hint_state(
    *, session: Session, user: User | None, course_slug: str, exercise: Exercise
) -> HintState:
    """The hints this user has opened in this course's exercise (none for visitors: they log
    in first)."""
    total = len(exercise.hints)
    if user is None or not total:
        return HintState(total, ())
    opened = revealed_count(
        session=session, user_id=user.id, course_slug=course_slug, exercise_slug=exercise.meta.slug
    )
    return HintState(total, exercise.hints[: min(opened, total)])


@router.post("/exercises/{slug}/hints")
def open_hint(
    slug: str, request: Request, session: SessionDep, course: CourseDep, user: OptionalUser
) -> Response:
    """Open the next hint, then back to the exercise, at the hints."""
    exercise = course.exercise(slug)
    here = course_slug_of(request.scope.get("course"))
    if exercise is None or (
        exercise.meta.draft and not staff_of_course(session=session, user=user, course_slug=here)
    ):
        raise HTTPException(404, f"There is no exercise called '{slug}'.")
    if user is None:
        return RedirectResponse(f"/login?next=/exercises/{slug}%23hints", status_code=303)
    if not exercise.hints:
        raise HTTPException(404, "This exercise has no hints.")
    locked = lock_reason(
        session=session,
        user_id=user.id,
        course_slug=here,
        exercise_slug=slug,
        what="hints",
        now=utcnow(),
    )
    if locked:
        raise HTTPException(403, locked)
    reveal_next(
        session=session,
        user_id=user.id,
        course_slug=here,
        exercise_slug=slug,
        available=len(exercise.hints),
    )
    return RedirectResponse(f"/exercises/{slug}#hints", status_code=303)
