"""New and duplicated items: every file saved as a draft, so nothing reaches students unseen."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping

from sqlalchemy.orm import Session

from app.authoring import drafts, paths
from app.authoring.templates import exercise_files
from app.content.loader import Course
from app.courses.registry import CourseSource
from app.errors import DomainError
from app.users.models import User
from graders import FRAMEWORKS

BAD_SLUG = "A name is lowercase letters, digits and single dashes, e.g. 'rope-angles'."
TAKEN = "There is already {kind} called '{slug}' in this course (published or as a draft)."
NO_SUCH = "There is no {kind} called '{slug}' in this course."
BAD_FRAMEWORKS = "Choose one or more frameworks from: {known}."
# A copy is hidden even once published: it may hold an open exam's questions under new names.
COPIED = (
    "This is a copy, saved as a draft marked `draft: true`: students will not see it, even once "
    "published, until you remove that line."
)
DRAFT_LINE = (
    "# A copy: students cannot see a draft; remove this line when it is ready.\ndraft: true\n"
)


def check_slug(slug: str) -> str:
    """The slug when it can name a lesson or exercise; 422 with an example otherwise."""
    if not re.fullmatch(paths.SLUG, slug) or "--" in slug or slug.endswith("-"):
        raise DomainError(422, BAD_SLUG)
    return slug


def entry_name(slug: str) -> str:
    """A Python function name for a slug ('rope-angles' -> 'rope_angles')."""
    name = slug.replace("-", "_")
    return name if name[:1].isalpha() else f"solve_{name}"


def exercise_paths(*, session: Session, source: CourseSource, slug: str) -> list[str]:
    """Every writable file of the exercise, on disk or only in a draft, sorted."""
    found: set[str] = set()
    folder = source.folder / "exercises" / slug
    if folder.is_dir():
        for file in folder.rglob("*"):
            rel = file.relative_to(source.folder).as_posix()
            if file.is_file() and _writable(rel):
                found.add(rel)
    prefix = f"exercises/{slug}/"
    found |= {
        d.path
        for d in drafts.drafts_of(session=session, course_slug=source.slug)
        if d.path.startswith(prefix)
    }
    return sorted(found)


def _writable(path: str) -> bool:
    try:
        paths.writable(path)
    except DomainError:
        return False
    return True


def lesson_paths(*, session: Session, source: CourseSource) -> dict[str, str]:
    """Each lesson's slug (from its front matter, else the file name) to its file."""
    texts = {
        p.relative_to(source.folder).as_posix(): drafts.disk_text(
            source.folder, p.relative_to(source.folder).as_posix()
        )
        for p in sorted((source.folder / "lessons").glob("*.md"))
    }
    for d in drafts.drafts_of(session=session, course_slug=source.slug):
        if d.path.startswith("lessons/"):
            texts[d.path] = d.text
    found: dict[str, str] = {}
    for path, text in texts.items():
        match = re.search(r"^slug:\s*['\"]?([a-z0-9-]+)", text or "", re.MULTILINE)
        slug = match.group(1) if match else path.removeprefix("lessons/").removesuffix(".md")
        found.setdefault(slug, path)
    return found


def _save_all(
    *, session: Session, source: CourseSource, files: Mapping[str, str], user: User
) -> None:
    for path, text in files.items():
        paths.check_size(text)
        drafts.save(
            session=session,
            folder=source.folder,
            course_slug=source.slug,
            path=path,
            text=text,
            base=None,
            user=user,
        )


def _exercise_taken(session: Session, source: CourseSource, slug: str) -> bool:
    return (
        bool(exercise_paths(session=session, source=source, slug=slug))
        or (source.folder / "exercises" / slug).exists()
    )


def new_exercise(
    *,
    session: Session,
    source: CourseSource,
    content: Course,
    slug: str,
    frameworks: list[str],
    user: User,
) -> str:
    """Save a new exercise's files from the commented template; the path to open first."""
    check_slug(slug)
    chosen = list(dict.fromkeys(frameworks))
    if not chosen or any(fw not in FRAMEWORKS for fw in chosen):
        raise DomainError(422, BAD_FRAMEWORKS.format(known=", ".join(FRAMEWORKS)))
    if _exercise_taken(session, source, slug):
        raise DomainError(409, TAKEN.format(kind="an exercise", slug=slug))
    order = max((ex.meta.order for ex in content.exercises), default=0) + 1
    files = exercise_files(
        slug=slug, uuid=str(uuid.uuid4()), order=order, func=entry_name(slug), frameworks=chosen
    )
    _save_all(session=session, source=source, files=files, user=user)
    return f"exercises/{slug}/exercise.yaml"


def _renamed_yaml(text: str, *, key: str, value: str) -> str:
    """The YAML text with a top-level `key:` line given this value (added when missing)."""
    line = re.compile(rf"^{key}:.*$", re.MULTILINE)
    if line.search(text):
        return line.sub(f"{key}: {value}", text, count=1)
    return f"{key}: {value}\n{text}"


def _as_draft(text: str) -> str:
    """The YAML text with `draft: true` (a `draft:` line replaced, else one added at the end)."""
    if re.search(r"^draft:", text, re.MULTILINE):
        return _renamed_yaml(text, key="draft", value="true")
    ending = "" if not text or text.endswith("\n") else "\n"
    return f"{text}{ending}{DRAFT_LINE}"


def duplicate_exercise(
    *, session: Session, source: CourseSource, slug: str, new_slug: str, user: User
) -> str:
    """Copy an exercise (its drafts where it has some) under a new slug and a new uuid, as a
    draft: published, an open exam's exercise under a new slug would be open for practice."""
    check_slug(new_slug)
    originals = exercise_paths(session=session, source=source, slug=slug)
    if not originals:
        raise DomainError(404, NO_SUCH.format(kind="exercise", slug=slug))
    if _exercise_taken(session, source, new_slug):
        raise DomainError(409, TAKEN.format(kind="an exercise", slug=new_slug))
    files: dict[str, str] = {}
    for path in originals:
        text = drafts.load(
            session=session, folder=source.folder, course_slug=source.slug, path=path
        ).text
        if text is None:
            continue
        rel = path.removeprefix(f"exercises/{slug}/")
        if rel == "exercise.yaml":
            text = _renamed_yaml(text, key="slug", value=new_slug)
            text = _as_draft(_renamed_yaml(text, key="uuid", value=str(uuid.uuid4())))
        files[f"exercises/{new_slug}/{rel}"] = text
    _save_all(session=session, source=source, files=files, user=user)
    return f"exercises/{new_slug}/exercise.yaml"


def duplicate_lesson(
    *, session: Session, source: CourseSource, slug: str, new_slug: str, user: User
) -> str:
    """Copy a lesson (its draft where it has one) under a new slug, as lessons/<new>.md, marked
    `draft: true`: published, an open exam's quiz questions under a new lesson would be open."""
    check_slug(new_slug)
    lessons = lesson_paths(session=session, source=source)
    if slug not in lessons:
        raise DomainError(404, NO_SUCH.format(kind="lesson", slug=slug))
    target = f"lessons/{new_slug}.md"
    if new_slug in lessons or (source.folder / target).exists():
        raise DomainError(409, TAKEN.format(kind="a lesson", slug=new_slug))
    text = drafts.load(
        session=session, folder=source.folder, course_slug=source.slug, path=lessons[slug]
    ).text
    assert text is not None
    front_end = text.find("\n---", 4)
    front, body = (text[:front_end], text[front_end:]) if front_end > 0 else (text, "")
    opening = "---\n" if front.startswith("---\n") else ""  # keys go inside the front matter
    inner = _renamed_yaml(front.removeprefix(opening), key="slug", value=new_slug)
    copied = opening + _as_draft(inner).removesuffix("\n") + body
    _save_all(session=session, source=source, files={target: copied}, user=user)
    return target
