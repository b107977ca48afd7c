"""The authoring pages: a course's items, a plain form per text file, preview, publish, history.

Every page works without JavaScript (a `<textarea>` form); CodeMirror is a later step.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.authoring import check_job, create, drafts, editors, paths, service
from app.authoring.check import Found
from app.authoring.publish import PublishRefused
from app.authoring.routes import Authoring, course_source
from app.authoring.templates import LESSON_TEMPLATE
from app.content.loader import Lesson
from app.courses.routes import refresh_here
from app.courses.service import request_registry
from app.errors import DomainError
from app.jobs.deps import QueueDep
from app.offerings.access import InstructorMember
from app.quiz.grading import variant_params
from app.quiz.views import QuizView, question_view
from app.users.deps import CurrentUser
from app.users.models import User
from app.web.api import RowId
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)
DISCARDED = "Draft discarded: this is the text on disk, what students see."


def _editor(request: Request, session: SessionDep, user: User, course: str) -> Authoring:
    source, content = course_source(request, course)
    editors.require_editor(session=session, user=user, course_slug=source.slug)
    return Authoring(source, content, user)


@router.get("/authoring")
def authoring_home(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """The courses this account may author; straight to the course when there is one."""
    slugs = request_registry(request).slugs()
    mine = editors.editable_courses(session=session, user=user, slugs=slugs)
    if len(mine) == 1:
        return RedirectResponse(f"/authoring/{mine[0]}", status_code=303)
    if not mine:
        raise DomainError(403, editors.NOT_EDITOR)
    return render(request, "authoring/courses.html", user=user, courses=mine)


@router.get("/instructor/authoring")
def staff_entry(request: Request, session: SessionDep, member: InstructorMember) -> Response:
    """The staff menu's way in: the offering's course, and whether this account may author it."""
    slug = member.offering.course_slug
    may = editors.is_editor(session=session, user=member.user, course_slug=slug)
    return render(request, "authoring/entry.html", user=member.user, course=slug, may=may)


@router.get("/authoring/{course}")
def course_page(course: str, request: Request, session: SessionDep, user: CurrentUser) -> Response:
    """The course's lessons and exercises with their state, its drafts, publish and history."""
    a = _editor(request, session, user, course)
    pending = drafts.drafts_of(session=session, course_slug=a.source.slug)
    return render(
        request,
        "authoring/course.html",
        user=user,
        course=a.source.slug,
        title=a.source.meta.title,
        items=service.items(session=session, source=a.source, content=a.content),
        drafts=pending,
        disk_moved={d.path for d in pending if drafts.disk_moved(a.source.folder, d)},
        versions=service.versions(session=session, course_slug=a.source.slug),
        quizzes={
            les.meta.slug: len(les.meta.quiz)
            for les in service.draft_course(session=session, source=a.source).lessons
        },
        published=request.query_params.get("published"),
    )


def _numbered(text: str, problems: list[Found], path: str) -> list[dict[str, Any]]:
    """The text's lines, each with the problems reported on it (shown beside it)."""
    by_line: dict[int, list[str]] = {}
    for p in problems:
        if p.file == path and p.line:
            by_line.setdefault(p.line, []).append(p.message)
    return [
        {"number": n, "text": line, "problems": by_line.get(n, [])}
        for n, line in enumerate(text.splitlines(), start=1)
    ]


def _edit_page(
    request: Request,
    session: Session,
    a: Authoring,
    *,
    path: str,
    text: str,
    base: str | None,
    problems: list[Found],
    message: str | None = None,
    status_code: int = 200,
) -> Response:
    kind, slug = paths.item_of(path)
    files: list[str] = []
    if kind == "lesson":
        slug = {p: s for s, p in create.lesson_paths(session=session, source=a.source).items()}.get(
            path, slug
        )
    else:
        files = create.exercise_paths(session=session, source=a.source, slug=slug)
    hints = [f for f in files if f.startswith(f"exercises/{slug}/hints/")]
    first_line = next((p.line for p in problems if p.file == path and p.line), None)
    state = drafts.load(
        session=session, folder=a.source.folder, course_slug=a.source.slug, path=path
    )
    return render(
        request,
        "authoring/edit.html",
        user=a.user,
        status_code=status_code,
        course=a.source.slug,
        path=path,
        text=text,
        base=base or "",
        problems=problems,
        lines=_numbered(text, problems, path) if problems else [],
        message=message,
        preview=f"/authoring/{a.source.slug}/preview/{kind}s/{slug}",
        conflicts=drafts.conflicts_of(session=session, course_slug=a.source.slug, path=path),
        item_slug=slug,
        files=files,
        next_hint=len(hints) + 1,
        language="python" if path.endswith(".py") else "text",
        problem_line=first_line,
        grading=check_job.latest_check(session=session, course_slug=a.source.slug, path=path),
        draft=state.draft,
        disk_changed=state.disk_changed,
        disk_text=state.disk_text,
        disk_revision=state.disk_revision or "",
        disk_message=drafts.DISK_CHANGED,
    )


@router.get("/authoring/{course}/edit/{path:path}")
def edit_page(
    course: str, path: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """A text file in a form: the draft's text when there is one, with its problems."""
    a = _editor(request, session, user, course)
    path = paths.writable(path)
    loaded = drafts.load(
        session=session, folder=a.source.folder, course_slug=a.source.slug, path=path
    )
    problems = (
        service.check_file(session=session, source=a.source, content=a.content, path=path)
        if loaded.draft
        else []
    )
    return _edit_page(
        request,
        session,
        a,
        path=path,
        text=loaded.text or "",
        base=loaded.revision,
        problems=problems,
        message=_notice(request),
    )


def _notice(request: Request) -> str | None:
    """What the edit page says after a redirect to it (a draft discarded, a copy made)."""
    if request.query_params.get("discarded"):
        return DISCARDED
    return create.COPIED if request.query_params.get("copied") else None


@router.post("/authoring/{course}/edit/{path:path}")
async def edit_form(
    course: str,
    path: str,
    request: Request,
    session: SessionDep,
    user: CurrentUser,
    queue: QueueDep,
) -> Response:
    """Save the form's text as a draft; the page shows the check's problems beside their lines
    and the state of the grading check it queued (as the API's save does)."""
    a = _editor(request, session, user, course)
    path = paths.writable(path)
    form = await request.form()
    text = str(form.get("text", "")).replace("\r\n", "\n")
    base = str(form.get("base", "")) or None
    seen = drafts.SeenDisk(str(form["disk"]) or None) if "disk" in form else None
    try:
        saved = service.save_file(
            session=session,
            source=a.source,
            content=a.content,
            path=path,
            text=text,
            base=base,
            user=user,
            seen_disk=seen,
        )
    except DomainError as exc:
        if exc.status != 409:
            raise
        loaded = drafts.load(
            session=session, folder=a.source.folder, course_slug=a.source.slug, path=path
        )
        return _edit_page(
            request,
            session,
            a,
            path=path,
            text=loaded.text or "",
            base=loaded.revision,
            problems=[],
            message=exc.message,
            status_code=409,
        )
    check_job.queue_check(
        session=session, queue=queue, source=a.source, path=saved["path"], user=user
    )
    problems = [Found(p["file"], p["line"], p["message"]) for p in saved["check"]["problems"]]
    note = "Draft saved; students do not see it until you publish." if not problems else None
    return _edit_page(
        request,
        session,
        a,
        path=saved["path"],
        text=text,
        base=saved["revision"],
        problems=problems,
        message=note,
    )


@router.post("/authoring/{course}/new-lesson")
async def new_lesson(
    course: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Start a lesson from the commented template, as a draft."""
    a = _editor(request, session, user, course)
    slug = create.check_slug(str((await request.form()).get("slug", "")).strip())
    path = f"lessons/{slug}.md"
    taken = create.lesson_paths(session=session, source=a.source)
    if slug in taken or path in taken.values():
        raise DomainError(409, f"There is already a lesson called '{slug}'.")
    order = max((les.meta.order for les in a.content.lessons), default=0) + 1
    text = LESSON_TEMPLATE.format(slug=slug, order=order)
    service.save_file(
        session=session,
        source=a.source,
        content=a.content,
        path=path,
        text=text,
        base=None,
        user=user,
    )
    return RedirectResponse(f"/authoring/{a.source.slug}/edit/{path}", status_code=303)


@router.post("/authoring/{course}/publish")
async def publish_form(
    course: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Publish every draft; refused versions show their problems."""
    a = _editor(request, session, user, course)
    message = str((await request.form()).get("message", ""))
    try:
        version = service.publish_drafts(
            session=session, source=a.source, content=a.content, user=user, message=message
        )
    except PublishRefused as exc:
        return render(
            request, "authoring/refused.html", status_code=409, user=user, course=a.source.slug,
            message=exc.message, problems=exc.problems,
        )  # fmt: skip
    refresh_here(request, session, a.source.slug)
    return RedirectResponse(f"/authoring/{a.source.slug}?published={version.id}", status_code=303)


@router.post("/authoring/{course}/versions/{version}/restore")
def restore_form(
    course: str, version: RowId, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """Make an old version current again."""
    a = _editor(request, session, user, course)
    try:
        made = service.restore(
            session=session, source=a.source, content=a.content, user=user, number=version
        )
    except PublishRefused as exc:
        return render(
            request, "authoring/refused.html", status_code=409, user=user, course=a.source.slug,
            message=exc.message, problems=exc.problems,
        )  # fmt: skip
    refresh_here(request, session, a.source.slug)
    return RedirectResponse(f"/authoring/{a.source.slug}?published={made.id}", status_code=303)


def preview_quiz(lesson: Lesson, action: str) -> QuizView | None:
    """The quiz's empty form with a new random variant each time (a preview grades nothing)."""
    if not lesson.meta.quiz:
        return None
    seed = secrets.token_hex(8)
    return QuizView(
        slug=lesson.meta.slug,
        action=action,
        questions=[
            question_view(q, i, variant_params(q, seed=seed) if q.params else {})
            for i, q in enumerate(lesson.meta.quiz, start=1)
        ],
        attempt=None,
        attempts=0,
        logged_in=True,
        login_url="",
        signup_url="",
    )


@router.get("/authoring/{course}/preview/lessons/{slug}")
def preview_lesson(
    course: str, slug: str, request: Request, session: SessionDep, user: CurrentUser
) -> Response:
    """The draft lesson as a student would see it, with a new quiz variant on each reload."""
    a = _editor(request, session, user, course)
    draft = service.draft_course(session=session, source=a.source)
    lesson = draft.lesson(slug)
    if lesson is None:
        raise HTTPException(
            404, f"The lesson '{slug}' does not load; open it in the editor to see why."
        )
    here = f"/authoring/{a.source.slug}/preview/lessons/{slug}"
    return render(
        request,
        "lesson.html",
        user=user,
        lesson=lesson,
        prev=None,
        next=None,
        practice=[],
        labs=[],
        quiz=preview_quiz(lesson, here),
        preview_of=a.source.slug,
    )
