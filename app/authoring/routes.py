"""The authoring API: course editors only (403 for everyone else); thin, the work is in service."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.authoring import check_job, drafts, editors, paths, run_job, service
from app.authoring.publish import PublishRefused
from app.content.loader import Course
from app.courses.registry import CourseSource
from app.courses.routes import refresh_here
from app.courses.service import course_or_404, request_registry
from app.errors import DomainError
from app.jobs.deps import QueueDep
from app.offerings.access import SiteAdmin
from app.users.deps import CurrentUser
from app.users.models import User
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["authoring"])
BASE = "/api/courses/{course}/authoring"


@dataclass(frozen=True)
class Authoring:
    """The course being authored and its editor."""

    source: CourseSource
    content: Course
    user: User


def course_source(request: Request, course: str) -> tuple[CourseSource, Course]:
    """The course's folder and served content, or 404."""
    content = course_or_404(request, course)
    source = request_registry(request).source(course)
    assert source is not None
    return source, content


def authoring(course: str, request: Request, session: SessionDep, user: CurrentUser) -> Authoring:
    """The course, once the user is known to be one of its editors (403 otherwise)."""
    source, content = course_source(request, course)
    editors.require_editor(session=session, user=user, course_slug=source.slug)
    return Authoring(source, content, user)


EditorOf = Annotated[Authoring, Depends(authoring)]


class FileIn(BaseModel):
    """A file's new text and the revision the editor loaded (null for a new file)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(description="The whole file.")
    base: str | None = Field(default=None, description="The revision the editor loaded.")
    disk: str | None = Field(
        default=None,
        description="The `disk_revision` whose text you merged into this one, when the file "
        "changed on disk under the draft (null: you saw it is gone from disk); leave it out "
        "if you have not seen the disk's text, and publish keeps refusing the draft.",
    )

    def seen_disk(self) -> drafts.SeenDisk | None:
        """The disk revision the save merged, when it names one (an explicit null counts)."""
        return drafts.SeenDisk(self.disk) if "disk" in self.model_fields_set else None


class PublishIn(BaseModel):
    """Why this version: the commit message."""

    model_config = ConfigDict(extra="forbid")
    message: str = Field(default="", max_length=2000, description="The commit message.")


class RunIn(BaseModel):
    """Code to grade against a draft exercise's tests."""

    model_config = ConfigDict(extra="forbid")
    exercise: str = Field(max_length=200, description="The exercise's slug.")
    code: str = Field(description="The code to grade.")
    framework: str | None = Field(default=None, description="Its framework (default: first).")
    mode: Literal["run", "submit"] = Field(
        default="run", description="run: the visible tests; submit: every test."
    )


class EditorIn(BaseModel):
    """The account to make (or stop being) an editor."""

    model_config = ConfigDict(extra="forbid")
    email: str = Field(max_length=320, description="The account's email address.")


@router.get(f"{BASE}/items", responses=errors(401, 403, 404, 422))
def api_items(session: SessionDep, a: EditorOf) -> list[dict[str, Any]]:
    """The course's lessons, exercises and assessments with their authoring state."""
    return service.items(session=session, source=a.source, content=a.content)


@router.get(f"{BASE}/files/{{path:path}}", responses=errors(401, 403, 404, 422))
def api_file(path: str, session: SessionDep, a: EditorOf) -> dict[str, Any]:
    """A file as the editor opens it: the draft's text when there is one, else the disk's.

    `disk_changed`: the file on disk changed since the draft began (publish refuses the draft);
    `disk_text` is then the disk's text to merge, and a save naming `disk_revision` as `disk`
    says it was merged.
    """
    path = paths.writable(path)
    loaded = drafts.load(
        session=session, folder=a.source.folder, course_slug=a.source.slug, path=path
    )
    return {
        "path": path,
        "text": loaded.text,
        "revision": loaded.revision,
        "draft": loaded.draft,
        "disk_changed": loaded.disk_changed,
        "disk_revision": loaded.disk_revision,
        "disk_text": loaded.disk_text if loaded.disk_changed else None,
        "message": drafts.DISK_CHANGED if loaded.disk_changed else None,
    }


@router.put(f"{BASE}/files/{{path:path}}", responses=errors(401, 403, 404, 409, 413, 422))
def api_save(
    path: str, body: Annotated[FileIn, Body()], session: SessionDep, a: EditorOf, queue: QueueDep
) -> dict[str, Any]:
    """Save a draft of the file and check the course with it; 409 on a stale base (text kept).

    `disk_changed` true: the disk's text is not merged yet (send its revision as `disk`).
    `check` is the text check, done now; `grading` (an exercise's file) is the grading check
    queued as a job, polled at its `url` (`GET .../authoring/checks/{job_id}`), else null.
    """
    saved = service.save_file(
        session=session,
        source=a.source,
        content=a.content,
        path=path,
        text=body.text,
        base=body.base,
        user=a.user,
        seen_disk=body.seen_disk(),
    )
    saved["grading"] = check_job.queue_check(
        session=session, queue=queue, source=a.source, path=saved["path"], user=a.user
    )
    return saved


@router.delete(f"{BASE}/drafts/{{path:path}}", responses=errors(401, 403, 404, 409, 422))
def api_discard(
    path: str, session: SessionDep, a: EditorOf, base: str | None = None
) -> dict[str, Any]:
    """Drop one file's draft (the disk's text stays), so the course's other drafts can publish;
    with `base` (the draft's revision you loaded), 409 if it was saved again since."""
    path = paths.writable(path)
    drafts.discard(session=session, course_slug=a.source.slug, path=path, base=base)
    on_disk = drafts.disk_text(a.source.folder, path)
    return {"path": path, "discarded": True, "revision": drafts.revision(on_disk)}


@router.get(f"{BASE}/checks/{{job_id}}", responses=errors(401, 403, 404, 422))
def api_check(job_id: RowId, session: SessionDep, a: EditorOf) -> dict[str, Any]:
    """A draft's grading check: `state` (queued, running, done, failed), then `ok` and the
    problems, each {file, line, message}."""
    return check_job.check_view(session=session, course_slug=a.source.slug, job_id=job_id)


@router.post(f"{BASE}/runs", status_code=202, responses=errors(401, 403, 404, 413, 422))
def api_run(body: RunIn, session: SessionDep, a: EditorOf, queue: QueueDep) -> dict[str, Any]:
    """Queue a run of any code against a draft exercise's tests (the preview's Run); answers
    at once with the job, polled at its `url` (`GET .../authoring/runs/{job_id}`)."""
    job = run_job.queue_run(
        session=session,
        queue=queue,
        source=a.source,
        slug=body.exercise,
        code=body.code,
        framework=body.framework,
        mode=body.mode,
        user=a.user,
    )
    return {"job": job.id, "state": job.state, "url": run_job.run_url(a.source.slug, job.id)}


@router.get(f"{BASE}/runs/{{job_id}}", responses=errors(401, 403, 404, 422))
def api_run_status(job_id: RowId, session: SessionDep, a: EditorOf) -> dict[str, Any]:
    """One of your runs: `state` (queued, running, done, failed), then the grader's `report`."""
    job = run_job.run_of(session=session, course_slug=a.source.slug, job_id=job_id, user=a.user)
    return run_job.run_view(job)


def refused(exc: PublishRefused) -> JSONResponse:
    """409 with the problems that stopped a publish."""
    return JSONResponse(
        {"detail": exc.message, "problems": [p.as_dict() for p in exc.problems]}, status_code=409
    )


@router.post(f"{BASE}/publish", responses=errors(401, 403, 404, 409, 422))
def api_publish(
    course: str, request: Request, body: PublishIn, session: SessionDep, a: EditorOf
) -> Any:
    """Publish every draft as one version; 409 with problems (the last good version serves on)."""
    try:
        version = service.publish_drafts(
            session=session, source=a.source, content=a.content, user=a.user, message=body.message
        )
    except PublishRefused as exc:
        return refused(exc)
    result = refresh_here(request, session, a.source.slug)
    return {"version": version.id, "serving": result.version, "applied": result.applied}


@router.get(f"{BASE}/versions", responses=errors(401, 403, 404, 422))
def api_versions(session: SessionDep, a: EditorOf) -> list[dict[str, Any]]:
    """The course's published versions, newest first, with author and message."""
    return [
        service.version_item(v)
        for v in service.versions(session=session, course_slug=a.source.slug)
    ]


@router.post(f"{BASE}/versions/{{version}}/restore", responses=errors(401, 403, 404, 409, 422))
def api_restore(version: RowId, request: Request, session: SessionDep, a: EditorOf) -> Any:
    """Make an old version current again through the publish checks."""
    try:
        made = service.restore(
            session=session, source=a.source, content=a.content, user=a.user, number=version
        )
    except PublishRefused as exc:
        return refused(exc)
    result = refresh_here(request, session, a.source.slug)
    return {"version": made.id, "serving": result.version, "applied": result.applied}


@router.post(f"{BASE}/editors", status_code=201, responses=errors(401, 403, 404, 422))
def api_grant(
    course: str, request: Request, body: EditorIn, session: SessionDep, admin: SiteAdmin
) -> dict[str, Any]:
    """Make an account an editor of the course (site administrators only)."""
    source, _ = course_source(request, course)
    user = editors.grant(session=session, course_slug=source.slug, email=body.email, by=admin)
    return {"course": source.slug, "user_id": user.id, "email": user.email, "editor": True}


@router.delete(f"{BASE}/editors", responses=errors(401, 403, 404, 422))
def api_revoke(
    course: str, request: Request, body: EditorIn, session: SessionDep, admin: SiteAdmin
) -> dict[str, Any]:
    """Stop an account being an editor of the course (site administrators only)."""
    source, _ = course_source(request, course)
    removed = editors.revoke(session=session, course_slug=source.slug, email=body.email)
    if not removed:
        raise DomainError(404, "That account is not an editor of this course.")
    return {"course": source.slug, "email": body.email, "editor": False}
