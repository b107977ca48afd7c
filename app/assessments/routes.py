"""Students' assessment pages and the autosave API; thin, the rules are in service.py."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.assessments import service
from app.assessments.loader import assessments_for
from app.assessments.models import AssessmentAttempt
from app.assessments.schema import AssessmentFile
from app.assessments.scoring import released
from app.assessments.views import attempt_state, item_views, picked, window_view
from app.config import get_settings
from app.content.loader import Course
from app.content.render import render_markdown
from app.content.service import CourseDep
from app.courses.service import request_registry
from app.jobs.base import JobQueue
from app.jobs.deps import QueueDep
from app.models_base import utcnow
from app.offerings.place import Place, PlaceDep
from app.quiz.service import MAX_ANSWER_CHARS
from app.users.deps import CurrentUser, OptionalUser
from app.users.models import User
from app.web.api import RowId, errors
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter(tags=["assessments"])


class AnswerIn(BaseModel):
    """Body of PUT /api/assessments/attempts/{id}/answers: one item's latest answer."""

    model_config = ConfigDict(extra="forbid")

    item: str = Field(max_length=220, description="The item key, as the attempt lists it.")
    value: (
        str | list[Annotated[str, Field(max_length=MAX_ANSWER_CHARS)]] | dict[str, str] | None
    ) = Field(
        description=(
            "An option id, a list of option ids, typed text, or for an exercise "
            '{"framework": "numpy", "code": "..."}.'
        )
    )


class SubmitIn(BaseModel):
    """Body of POST /api/assessments/attempts/{id}/submit."""

    model_config = ConfigDict(extra="forbid")

    reason: str = Field(
        default="student",
        pattern="^(student|time)$",
        description="student (handed in) or time (the page's clock ran out).",
    )


def spec_or_404(course: Course, slug: str) -> AssessmentFile:
    """The loaded assessment, or a 404 that names the slug."""
    spec = assessments_for(course).get(slug)
    if spec is None:
        raise HTTPException(404, f"There is no assessment called '{slug}'.")
    return spec


def _attempt(
    queue: JobQueue, session: Session, request: Request, user: User, attempt_id: int
) -> tuple[AssessmentAttempt, AssessmentFile, Course]:
    """The student's own attempt with its course, handed in first if its time ran out."""
    attempt, course = _own(session, request, user, attempt_id)
    service.finish_if_due(
        session=session, course=course, attempt=attempt, now=utcnow(), enqueue=queue.enqueue
    )
    return attempt, spec_or_404(course, attempt.assessment_slug), course


def _own(
    session: Session, request: Request, user: User, attempt_id: int
) -> tuple[AssessmentAttempt, Course]:
    """The student's own attempt and the course it was started in (whatever the address)."""
    attempt = service.own_attempt(session=session, attempt_id=attempt_id, user=user)
    course = request_registry(request).content(attempt.course_slug)
    if course is None:
        raise HTTPException(404, f"The course '{attempt.course_slug}' is no longer served.")
    return attempt, course


@router.get("/assessments", include_in_schema=False)
def list_page(request: Request, course: CourseDep, user: CurrentUser) -> Response:
    """Every assessment of the course with its window."""
    return render(
        request, "assessments/list.html", user=user, specs=assessments_for(course).ordered()
    )


@router.get("/assessments/{slug}", include_in_schema=False)
def intro_page(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    place: PlaceDep,
    user: OptionalUser,
    queue: QueueDep,
) -> Response:
    """The rules, the student's own window and time, past attempts, and the start button."""
    spec = spec_or_404(course, slug)
    if user is None:
        return RedirectResponse(f"/login?next=/assessments/{slug}", status_code=303)
    now = utcnow()
    # its attempts and window
    here = service.work_offering(session=session, course=course, user_id=user.id, place=place)
    attempts = service.attempts_of(session=session, slug=slug, user_id=user.id, offering_id=here)
    for attempt in attempts:
        service.finish_if_due(
            session=session, course=course, attempt=attempt, now=now, enqueue=queue.enqueue
        )
    window = service.window_for(session=session, spec=spec, user_id=user.id, offering_id=here)
    return render(
        request,
        "assessments/intro.html",
        user=user,
        spec=spec,
        window=window_view(window, spec),
        attempts=attempts,
        running=next((a for a in attempts if a.status == "open"), None),
        is_open=window.opens <= now < window.closes,
        released={a.id: released(a, now) for a in attempts},
        instructions_html=render_markdown(spec.instructions) if spec.instructions else "",
        now=now,
    )


@router.post("/assessments/{slug}/start", include_in_schema=False)
def start_form(
    slug: str, session: SessionDep, place: PlaceDep, user: CurrentUser, queue: QueueDep
) -> Response:
    """Start (or continue) an attempt, then show it."""
    attempt = _start(queue, session, place, user, slug)
    return RedirectResponse(f"/assessments/attempts/{attempt.id}", status_code=303)


def _start(
    queue: JobQueue, session: Session, place: Place, user: User, slug: str
) -> AssessmentAttempt:
    return service.start_attempt(
        session=session,
        course=place.course,
        spec=spec_or_404(place.course, slug),
        user=user,
        now=utcnow(),
        enqueue=queue.enqueue,
        place=place,
    )


@router.get("/assessments/attempts/{attempt_id}", include_in_schema=False)
def attempt_page(
    attempt_id: RowId,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    queue: QueueDep,
) -> Response:
    """The exam while it runs (answers filled in from the server), else its result."""
    attempt, spec, course = _attempt(queue, session, request, user, attempt_id)
    answers = service.answers_of(session=session, attempt=attempt)
    now = utcnow()
    name = "assessments/exam.html" if attempt.status == "open" else "assessments/result.html"
    return render(
        request,
        name,
        user=user,
        spec=spec,
        attempt=attempt,
        items=item_views(course=course, spec=spec, attempt=attempt, answers=answers),
        picked=picked,
        state=attempt_state(attempt, answers, now),
    )


@router.post("/assessments/attempts/{attempt_id}", include_in_schema=False)
async def attempt_form(
    attempt_id: RowId,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    queue: QueueDep,
) -> Response:
    """Without JavaScript: save every field of the form, and hand in when asked."""
    form = await request.form()
    attempt, _, course = _attempt(queue, session, request, user, attempt_id)
    now = utcnow()
    if attempt.status == "open":
        for index, entry in enumerate(attempt.items):
            key = entry["key"]
            if key.startswith("x:"):
                code, framework = form.get(f"code-{index}"), form.get(f"framework-{index}")
                value: Any = {"framework": framework, "code": code} if code is not None else None
            else:
                values = [v for v in form.getlist(f"item-{index}") if isinstance(v, str)]
                value = values if form.get(f"multi-{index}") else (values[0] if values else None)
            if value is None:
                continue
            try:
                _save(queue, session, course, attempt, key, value)
            except service.AssessmentError as exc:
                if exc.status != 409:
                    raise
                break  # handed in meanwhile (the clock, another tab): the result page says so
        if form.get("action") == "submit" and attempt.status == "open":
            service.finish_attempt(
                session=session,
                course=course,
                attempt=attempt,
                now=now,
                by="student",
                enqueue=queue.enqueue,
            )
    return RedirectResponse(f"/assessments/attempts/{attempt.id}", status_code=303)


def _save(
    queue: JobQueue,
    session: Session,
    course: Course,
    attempt: AssessmentAttempt,
    key: str,
    value: Any,
) -> Any:
    return service.save_answer(
        session=session,
        course=course,
        attempt=attempt,
        item_key=key,
        value=value,
        now=utcnow(),
        max_code_bytes=get_settings().max_code_bytes,
        enqueue=queue.enqueue,
    )


@router.post(
    "/api/assessments/{slug}/attempts", status_code=201, responses=errors(401, 403, 404, 409, 422)
)
def start_api(
    slug: str, session: SessionDep, place: PlaceDep, user: CurrentUser, queue: QueueDep
) -> dict[str, Any]:
    """Start an attempt (or get the one running): its items, deadline and saved answers."""
    attempt = _start(queue, session, place, user, slug)
    answers = service.answers_of(session=session, attempt=attempt)
    return attempt_state(attempt, answers, utcnow())


@router.get("/api/assessments/attempts/{attempt_id}", responses=errors(401, 403, 404, 422))
def read_api(
    attempt_id: RowId, request: Request, session: SessionDep, user: CurrentUser, queue: QueueDep
) -> dict[str, Any]:
    """Your attempt: time left, items, saved answers; its score once released."""
    attempt, _, _ = _attempt(queue, session, request, user, attempt_id)
    answers = service.answers_of(session=session, attempt=attempt)
    return attempt_state(attempt, answers, utcnow())


@router.put(
    "/api/assessments/attempts/{attempt_id}/answers",
    responses=errors(401, 403, 404, 409, 413, 422),
)
def save_api(
    attempt_id: RowId,
    body: Annotated[AnswerIn, Body()],
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    queue: QueueDep,
) -> dict[str, Any]:
    """Autosave one answer; 409 after the deadline (nothing saved, the attempt handed in)."""
    attempt, course = _own(session, request, user, attempt_id)
    row = _save(queue, session, course, attempt, body.item, body.value)
    return {"item": row.item_key, "saves": row.saves, "saved_at": row.updated_at.isoformat()}


@router.post(
    "/api/assessments/attempts/{attempt_id}/submit", responses=errors(401, 403, 404, 409, 422)
)
def submit_api(
    attempt_id: RowId,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    queue: QueueDep,
    body: Annotated[SubmitIn | None, Body()] = None,
) -> dict[str, Any]:
    """Hand the attempt in now (the page calls it when its clock reaches zero)."""
    attempt, _, course = _attempt(queue, session, request, user, attempt_id)
    if attempt.status == "open":
        service.finish_attempt(
            session=session,
            course=course,
            attempt=attempt,
            now=utcnow(),
            by="clock" if body is not None and body.reason == "time" else "student",
            enqueue=queue.enqueue,
        )
    answers = service.answers_of(session=session, attempt=attempt)
    return attempt_state(attempt, answers, utcnow())
