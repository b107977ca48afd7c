"""The authoring area's operations: list items, save a file's draft, publish, history, restore."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.authoring import create, drafts, paths
from app.authoring.check import Found, check_texts, exam_problems, found, problems_for
from app.authoring.models import AuthoringDraft, ContentVersion
from app.authoring.publish import Edit, apply
from app.content.loader import Course
from app.courses.registry import CourseSource
from app.errors import DomainError
from app.users.models import User

NOTHING = "There are no drafts to publish."
ALREADY = "Version {n} is already the current one."
NO_VERSION = "There is no version {n} of this course."


def served_found(source: CourseSource, content: Course) -> list[Found]:
    """The served version's problems, paths relative to the course folder."""
    return found(content, source.folder) + exam_problems(content, source.folder)


def save_file(
    *,
    session: Session,
    source: CourseSource,
    content: Course,
    path: str,
    text: str,
    base: str | None,
    user: User,
    seen_disk: drafts.SeenDisk | None = None,
) -> dict[str, Any]:
    """Keep the text as a draft, then check the course with every draft applied.

    `disk_changed` says the file on disk still differs from what the draft stands on (publish
    refuses it until a save names the disk revision it merged, `seen_disk`).
    """
    path = paths.writable(path)
    paths.check_size(text)
    draft = drafts.save(
        session=session,
        folder=source.folder,
        course_slug=source.slug,
        path=path,
        text=text,
        base=base,
        user=user,
        seen_disk=seen_disk,
    )
    problems = check_file(session=session, source=source, content=content, path=path)
    return {
        "path": path,
        "revision": drafts.revision(text),
        "disk_changed": drafts.disk_moved(source.folder, draft),
        "check": {"ok": not problems, "problems": [p.as_dict() for p in problems]},
    }


def draft_texts(*, session: Session, course_slug: str) -> dict[str, str]:
    """Every draft of the course, path to text."""
    return {d.path: d.text for d in drafts.drafts_of(session=session, course_slug=course_slug)}


def check_file(
    *, session: Session, source: CourseSource, content: Course, path: str
) -> list[Found]:
    """The problems an editor of this file must hear about, with every draft applied."""
    texts = draft_texts(session=session, course_slug=source.slug)
    _, all_found = check_texts(source.folder, texts)
    return problems_for(all_found, served_found(source, content), {path})


def draft_course(*, session: Session, source: CourseSource) -> Course:
    """The course as it would be with every draft published (for the preview)."""
    course, _ = check_texts(source.folder, draft_texts(session=session, course_slug=source.slug))
    return course


def _count(problems: list[Found], kind: str, slug: str, lesson_file: str | None) -> int:
    if kind == "lesson":
        return sum(p.file == lesson_file for p in problems)
    return sum(
        p.file.startswith(f"exercises/{slug}/") or p.file == f"exercises/{slug}" for p in problems
    )


def items(*, session: Session, source: CourseSource, content: Course) -> list[dict[str, Any]]:
    """Every lesson, exercise and assessment with its state: published, draft, changed, problems.

    Each row also names the file an editor opens first (`path`); a lesson's file need not be
    named after its slug (`lessons/03-learned-absolute.md` holds `learned-absolute`).
    """
    texts = draft_texts(session=session, course_slug=source.slug)
    problems = check_texts(source.folder, texts)[1] if texts else served_found(source, content)
    lessons = create.lesson_paths(session=session, source=source)
    slug_of = {path: slug for slug, path in lessons.items()}
    edited = {
        ("lesson", slug_of.get(p, p[8:-3])) if p.startswith("lessons/") else paths.item_of(p)
        for p in texts
    }
    on_disk = {
        ("lesson", slug) for slug, path in lessons.items() if (source.folder / path).is_file()
    }
    on_disk |= {("lesson", les.meta.slug) for les in content.lessons}
    exercises_dir = source.exercises_dir
    on_disk |= {
        ("exercise", p.name)
        for p in (exercises_dir.iterdir() if exercises_dir.is_dir() else [])
        if p.is_dir() and not p.name.startswith((".", "_"))
    }
    on_disk |= {("exercise", ex.meta.slug) for ex in content.exercises}
    rows: list[dict[str, Any]] = []
    for kind, slug in sorted(on_disk | edited):
        path = lessons.get(slug) if kind == "lesson" else f"exercises/{slug}/exercise.yaml"
        count = _count(problems, kind, slug, path)
        state = "problems" if count else "published"
        if not count and (kind, slug) in edited:
            state = "changed" if (kind, slug) in on_disk else "draft"
        rows.append({"kind": kind, "slug": slug, "state": state, "problems": count, "path": path})
    assessments = source.folder / "assessments"
    for file in sorted(assessments.glob("*.yaml")) if assessments.is_dir() else []:
        rows.append(
            {"kind": "assessment", "slug": file.stem, "state": "published", "problems": 0,
             "path": f"assessments/{file.name}"}
        )  # fmt: skip
    return rows


def publish_drafts(
    *, session: Session, source: CourseSource, content: Course, user: User, message: str
) -> ContentVersion:
    """Publish every draft of the course as one version; the drafts are gone once it serves."""
    pending = drafts.drafts_of(session=session, course_slug=source.slug)
    if not pending:
        raise DomainError(409, NOTHING)
    edits = [Edit(d.path, d.text, d.disk_sha) for d in pending]
    texts = {d.id: d.text for d in pending}  # as published (the rows expire at its commit)
    version = apply(
        session=session,
        source=source,
        served=content,
        edits=edits,
        author=user,
        message=message.strip() or "Edited in the browser",
    )
    for draft_id, text in texts.items():  # one saved again meanwhile stays, based on this text
        session.execute(
            delete(AuthoringDraft).where(AuthoringDraft.id == draft_id, AuthoringDraft.text == text)
        )
        session.execute(
            update(AuthoringDraft)
            .where(AuthoringDraft.id == draft_id)
            .values(disk_sha=drafts.sha(text))
        )
    session.commit()
    return version


def versions(*, session: Session, course_slug: str) -> list[ContentVersion]:
    """The course's published versions, newest first."""
    return list(
        session.scalars(
            select(ContentVersion)
            .where(ContentVersion.course_slug == course_slug)
            .order_by(ContentVersion.id.desc())
        )
    )


def version_item(version: ContentVersion) -> dict[str, Any]:
    """One version in the API's shape."""
    return {
        "version": version.id,
        "author": version.author,
        "message": version.message,
        "commit": version.commit,
        "content_version": version.content_version,
        "files": [f["path"] for f in version.files],
        "restored_from": version.restored_from,
        "created_at": version.created_at.isoformat(),
    }


def restore_edits(history: list[ContentVersion], number: int) -> list[Edit]:
    """Edits that make version NUMBER current again (history oldest first)."""
    older = [v for v in history if v.id <= number]
    newer = [v for v in history if v.id > number]
    touched = sorted({f["path"] for v in newer for f in v.files})
    edits: list[Edit] = []
    for path in touched:
        kept = [f for v in older for f in v.files if f["path"] == path]
        undone = [(v.id, f) for v in newer for f in v.files if f["path"] == path]
        target = kept[-1]["after"] if kept else undone[0][1]["before"]
        last_id, last = undone[-1]
        if target != last["after"]:  # a file already as it was is left alone
            since = f"version {last_id} was published"
            edits.append(Edit(path, target, drafts.sha(last["after"]), since))
    return edits


def restore(
    *, session: Session, source: CourseSource, content: Course, user: User, number: int
) -> ContentVersion:
    """Make an old version current again, through the same checks as a publish."""
    history = list(reversed(versions(session=session, course_slug=source.slug)))
    if not any(v.id == number for v in history):
        raise DomainError(404, NO_VERSION.format(n=number))
    edits = restore_edits(history, number)
    if not edits:
        raise DomainError(409, ALREADY.format(n=number))
    return apply(
        session=session,
        source=source,
        served=content,
        edits=edits,
        author=user,
        message=f"Restore version {number}",
        restored_from=number,
    )
