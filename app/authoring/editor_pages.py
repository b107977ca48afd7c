"""The editor's other pages: new exercise, duplicate, an exercise's preview with Run, conflicts.

Every form works without JavaScript; the authoring bundle only puts CodeMirror on textareas.
"""

from __future__ import annotations

import functools

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse
from sqlalchemy import delete
from starlette.responses import Response

from app.authoring import create, drafts, paths, preview_run, service
from app.authoring.models import AuthoringConflict
from app.authoring.routes import Authoring, authoring
from app.content.loader import Exercise
from app.db import SessionDep
from app.errors import DomainError
from app.submissions.presenter import STAFF, present_report
from app.users.deps import CurrentUser
from app.web.api import RowId
from app.web.templating import render
from graders import Mode, Report

router = APIRouter(include_in_schema=False)
NO_DRAFT_EXERCISE = "The exercise '{slug}' does not load; open its files to see the problems."
NOT_OFFERED = "The exercise '{slug}' is not offered in '{framework}'; it offers: {offered}."
NO_CONFLICT = "There is no such conflict in this course (it may be resolved already)."
LABELS = {"numpy": "NumPy", "torch": "PyTorch", "jax": "JAX"}


@router.post("/authoring/{course}/new-exercise")
async def new_exercise(
    course: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Start an exercise from the commented template: every file a draft, then open its YAML."""
    a = authoring(course, request, session, user)
    form = await request.form()
    first = create.new_exercise(
        session=session,
        source=a.source,
        content=a.content,
        slug=str(form.get("slug", "")).strip(),
        frameworks=[str(fw) for fw in form.getlist("frameworks")] or ["numpy"],
        user=user,
    )
    return RedirectResponse(f"/authoring/{a.source.slug}/edit/{first}", status_code=303)


@router.post("/authoring/{course}/duplicate")
async def duplicate(
    course: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Copy a lesson or an exercise under a new name, as drafts."""
    a = authoring(course, request, session, user)
    form = await request.form()
    kind = str(form.get("kind", ""))
    copy = create.duplicate_lesson if kind == "lesson" else create.duplicate_exercise
    if kind not in ("lesson", "exercise"):
        raise DomainError(422, "Only a lesson or an exercise can be duplicated.")
    first = copy(
        session=session,
        source=a.source,
        slug=str(form.get("slug", "")),
        new_slug=str(form.get("new_slug", "")).strip(),
        user=user,
    )
    return RedirectResponse(f"/authoring/{a.source.slug}/edit/{first}", status_code=303)


def _draft_exercise(
    session: SessionDep, a: Authoring, slug: str, framework: str | None
) -> tuple[Exercise, str]:
    """The exercise as its drafts make it, and the framework asked for (or its first); 404."""
    exercise = service.draft_course(session=session, source=a.source).exercise(slug)
    if exercise is None:
        raise DomainError(404, NO_DRAFT_EXERCISE.format(slug=slug))
    chosen = framework or exercise.meta.frameworks[0]
    if chosen not in exercise.meta.frameworks:
        offered = ", ".join(exercise.meta.frameworks)
        raise DomainError(404, NOT_OFFERED.format(slug=slug, framework=chosen, offered=offered))
    return exercise, chosen


def _preview_page(
    request: Request,
    a: Authoring,
    exercise: Exercise,
    framework: str,
    *,
    code: str | None = None,
    report: Report | None = None,
    mode: str = "run",
) -> Response:
    return render(
        request,
        "authoring/preview_exercise.html",
        user=a.user,
        course=a.source.slug,
        exercise=exercise,
        framework=framework,
        labels=LABELS,
        code=exercise.starters[framework] if code is None else code,
        report=present_report(report, viewer=STAFF) if report is not None else None,
        mode=mode,
    )


@router.get("/authoring/{course}/preview/exercises/{slug}")
def preview_exercise(
    course: str, slug: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """The draft exercise as a student sees it: statement, hints and the code editor."""
    a = authoring(course, request, session, user)
    exercise, framework = _draft_exercise(session, a, slug, request.query_params.get("framework"))
    return _preview_page(request, a, exercise, framework)


@router.post("/authoring/{course}/preview/exercises/{slug}/run")
async def preview_run_form(
    course: str, slug: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Grade any code against the draft's tests (Run: visible ones; Submit: all) and show it."""
    a = authoring(course, request, session, user)
    form = await request.form()
    code = str(form.get("code", "")).replace("\r\n", "\n")
    paths.check_size(code)
    mode: Mode = "submit" if form.get("mode") == "submit" else "run"
    exercise, framework = _draft_exercise(session, a, slug, str(form.get("framework", "")) or None)
    report = await run_in_threadpool(  # grading takes seconds: never on the event loop
        functools.partial(
            preview_run.grade_draft,
            session=session,
            source=a.source,
            slug=slug,
            code=code,
            framework=framework,
            mode=mode,
        )
    )
    return _preview_page(request, a, exercise, framework, code=code, report=report, mode=mode)


@router.post("/authoring/{course}/conflicts/{conflict}/resolve")
def resolve_conflict(
    course: str, conflict: RowId, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Drop a text kept from a conflicting save, once its author has merged what they need."""
    a = authoring(course, request, session, user)
    row = session.get(AuthoringConflict, conflict)
    if row is None or row.course_slug != a.source.slug:
        raise DomainError(404, NO_CONFLICT)
    path = row.path
    session.execute(delete(AuthoringConflict).where(AuthoringConflict.id == row.id))
    session.commit()
    kept = drafts.conflicts_of(session=session, course_slug=a.source.slug, path=path)
    anchor = "#conflicts-h" if kept else ""
    return RedirectResponse(f"/authoring/{a.source.slug}/edit/{path}{anchor}", status_code=303)
