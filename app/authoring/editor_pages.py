"""The editor's other pages: new exercise, duplicate, an exercise's preview with Run, conflicts,
discarding a draft.

Every form works without JavaScript; the authoring bundle only puts CodeMirror on textareas.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from sqlalchemy import delete
from starlette.responses import Response

from app.authoring import create, drafts, paths, run_job
from app.authoring.models import AuthoringConflict
from app.authoring.routes import Authoring, authoring
from app.content.loader import Exercise
from app.errors import DomainError
from app.jobs.deps import QueueDep
from app.jobs.models import Job
from app.submissions.presenter import STAFF, present_report
from app.users.deps import CurrentUser
from app.web.api import RowId
from app.web.request_session import SessionDep
from app.web.templating import render
from graders import Mode

router = APIRouter(include_in_schema=False)
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
    """Copy a lesson or an exercise under a new name, as drafts marked `draft: true`."""
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
    return RedirectResponse(f"/authoring/{a.source.slug}/edit/{first}?copied=1", status_code=303)


def _preview_page(
    request: Request,
    a: Authoring,
    exercise: Exercise,
    framework: str,
    *,
    code: str | None = None,
    run: Job | None = None,
) -> Response:
    report = run_job.report_of(run) if run is not None else None
    return render(
        request,
        "authoring/preview_exercise.html",
        user=a.user,
        course=a.source.slug,
        exercise=exercise,
        framework=framework,
        labels=LABELS,
        code=exercise.starters[framework] if code is None else code,
        run=run,
        poll=run_job.run_url(a.source.slug, run.id) if run is not None else None,
        report=present_report(report, viewer=STAFF) if report is not None else None,
        mode=(run.payload or {}).get("mode", "run") if run is not None else "run",
    )


@router.get("/authoring/{course}/preview/exercises/{slug}")
def preview_exercise(
    course: str, slug: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """The draft exercise as a student sees it: statement, hints and the code editor."""
    a = authoring(course, request, session, user)
    exercise, framework = run_job.draft_exercise(
        session=session, source=a.source, slug=slug, framework=request.query_params.get("framework")
    )
    return _preview_page(request, a, exercise, framework)


@router.post("/authoring/{course}/preview/exercises/{slug}/run")
async def preview_run_form(
    course: str,
    slug: str,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    queue: QueueDep,
) -> Response:
    """Queue a run of any code against the draft's tests (Run: visible ones; Submit: all), then
    show its page, which follows the job."""
    a = authoring(course, request, session, user)
    form = await request.form()
    code = str(form.get("code", "")).replace("\r\n", "\n")
    mode: Mode = "submit" if form.get("mode") == "submit" else "run"
    job = run_job.queue_run(
        session=session,
        queue=queue,
        source=a.source,
        slug=slug,
        code=code,
        framework=str(form.get("framework", "")) or None,
        mode=mode,
        user=user,
    )
    return RedirectResponse(run_job.page_url(a.source.slug, slug, job.id), status_code=303)


@router.get("/authoring/{course}/preview/exercises/{slug}/runs/{job_id}")
def preview_run_page(
    course: str, slug: str, job_id: RowId, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """The preview with a run's code and, once a worker graded it, its report; until then the
    page refreshes itself (the authoring bundle polls the job instead)."""
    a = authoring(course, request, session, user)
    run = run_job.run_of(session=session, course_slug=a.source.slug, job_id=job_id, user=user)
    payload = run.payload or {}
    if payload.get("exercise") != slug:
        raise DomainError(404, run_job.NO_RUN)
    exercise, framework = run_job.draft_exercise(
        session=session, source=a.source, slug=slug, framework=str(payload.get("framework", ""))
    )
    return _preview_page(
        request, a, exercise, framework, code=str(payload.get("code", "")), run=run
    )


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


@router.post("/authoring/{course}/discard/{path:path}")
async def discard_draft(
    course: str, path: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Drop one file's draft so the course's other drafts can be published; the disk's text stays.

    The form names the draft's revision it showed: a draft saved again since is kept (409).
    """
    a = authoring(course, request, session, user)
    path = paths.writable(path)
    base = str((await request.form()).get("base", "")) or None
    drafts.discard(session=session, course_slug=a.source.slug, path=path, base=base)
    return RedirectResponse(f"/authoring/{a.source.slug}/edit/{path}?discarded=1", status_code=303)
