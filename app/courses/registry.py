"""Every course a deployment serves: found in folders, loaded on first use, versioned, refreshed.

The repository root (CONTENT_DIR) is the first course; then each folder under its courses/ with a
course.yaml, then COURSE_DIRS, then folders added at run time (`courses add`). Loading never
takes the site down: a broken file is a Problem shown to instructors, and a refresh that brings
new problems is refused, so the last good version keeps serving.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml
from pydantic import ValidationError

from app import yamlio
from app.content.loader import Course, Problem, load_course
from app.courses.first import folder_slug
from app.courses.schema import COURSE_FILE, CourseMeta
from app.courses.version import content_version
from app.hooks import course_problems
from app.models_base import utcnow
from app.web import heap

log = logging.getLogger(__name__)
COURSES_DIR = "courses"  # under the first course's folder: one sub-folder per further course


@dataclass(frozen=True)
class CourseSource:
    """Where a course lives and what its course.yaml says."""

    meta: CourseMeta
    folder: Path
    origin: str  # "root", "courses", "setting" or "added": how it was found

    @property
    def slug(self) -> str:
        """The course's permanent id."""
        return self.meta.slug

    @property
    def exercises_dir(self) -> Path:
        """The folder the grader reads this course's exercises from."""
        return self.folder / "exercises"


@dataclass(frozen=True)
class Refused:
    """A refresh that was not applied, and the problems that stopped it."""

    version: str
    problems: list[Problem]
    at: dt.datetime


@dataclass
class CourseEntry:
    """One course as served: its source, loaded content (None until first use) and version."""

    source: CourseSource
    content: Course | None = None
    version: str = ""
    loaded_at: dt.datetime | None = None
    refused: Refused | None = None

    @property
    def slug(self) -> str:
        """The course's permanent id."""
        return self.source.slug


@dataclass(frozen=True)
class RefreshResult:
    """What a refresh did: applied (now serving `version`) or refused (with its problems)."""

    slug: str
    applied: bool
    version: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def message(self) -> str:
        """One sentence for the command line and the admin page."""
        if self.applied:
            extra = f", with {len(self.problems)} known problem(s)" if self.problems else ""
            return f"{self.slug}: now serving version {self.version}{extra}."
        return (
            f"{self.slug}: version {self.version} has {len(self.problems)} problem(s) that the "
            f"served version does not have; the last good version keeps serving."
        )


def read_meta(folder: Path) -> CourseMeta | Problem:
    """The folder's course.yaml, validated, or the Problem that says what is wrong with it."""
    path = folder / COURSE_FILE
    where = str(path)
    try:
        data = yamlio.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Problem(where, "missing: a course folder needs a course.yaml (slug, title, ...)")
    except (OSError, UnicodeDecodeError) as exc:
        return Problem(where, f"cannot be read: {exc}")
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        return Problem(where, f"invalid YAML: {exc.problem}", line)
    except yaml.YAMLError as exc:
        return Problem(where, f"invalid YAML: {exc}")
    if not isinstance(data, dict):
        return Problem(where, "expected a mapping with slug, title, summary and authors", 1)
    try:
        return CourseMeta.model_validate(data)
    except ValidationError as exc:
        errors = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
            for e in exc.errors()
        )
        return Problem(where, errors)


def _root_fallback(folder: Path) -> CourseMeta:
    """The first course always serves, even before its course.yaml is written or fixed (under
    its folder's name: the slug comes from the content, never from a constant in the code)."""
    return CourseMeta(
        slug=folder_slug(folder),
        title="Course",
        summary="(course.yaml missing)",
        authors=["unknown"],
    )


def discover(
    content_dir: Path, extra_dirs: Iterable[tuple[Path, str]] = ()
) -> tuple[list[CourseSource], list[Problem]]:
    """Course sources, the first course first, and problems of folders that are not courses."""
    root = content_dir.resolve()
    problems: list[Problem] = []
    meta = read_meta(root)
    if isinstance(meta, Problem):
        problems.append(meta)
        meta = _root_fallback(root)
    sources = [CourseSource(meta, root, "root")]
    under = root / COURSES_DIR
    found = sorted(p for p in under.iterdir() if p.is_dir()) if under.is_dir() else []
    candidates = [(p, COURSES_DIR) for p in found if (p / COURSE_FILE).is_file()]
    for folder, origin in [*candidates, *((p.resolve(), o) for p, o in extra_dirs)]:
        source = _source(folder, origin, sources, problems)
        if source is not None:
            sources.append(source)
    return sources, problems


def _source(
    folder: Path, origin: str, sources: Sequence[CourseSource], problems: list[Problem]
) -> CourseSource | None:
    if any(s.folder == folder for s in sources):
        return None  # listed twice (e.g. under courses/ and in COURSE_DIRS): once is enough
    if not folder.is_dir():
        problems.append(Problem(str(folder), "is not a folder (or cannot be read)"))
        return None
    meta = read_meta(folder)
    if isinstance(meta, Problem):
        problems.append(meta)
        return None
    clash = next((s for s in sources if s.slug == meta.slug), None)
    if clash is not None:
        problems.append(
            Problem(
                str(folder / COURSE_FILE),
                f"slug '{meta.slug}' is already the course in {clash.folder}; "
                f"each course needs its own slug",
            )
        )
        return None
    return CourseSource(meta, folder, origin)


def load_source(source: CourseSource) -> tuple[Course, str]:
    """Load a course's content and its version (version first: a change meanwhile shows)."""
    version = content_version(source.folder)
    return load_course(source.folder / "lessons", source.exercises_dir), version


class Registry:
    """The courses one process serves, the first course too; thread-safe, loads a course on
    its first use (every request reads its course here, through CourseDep or its Place)."""

    def __init__(self, sources: Sequence[CourseSource], problems: Sequence[Problem] = ()) -> None:
        self._entries = {s.slug: CourseEntry(s) for s in sources}
        self.problems = list(problems)
        self._lock = threading.RLock()
        self.first_slug = sources[0].slug

    def slugs(self) -> list[str]:
        """Every course's slug, the first course first."""
        with self._lock:
            return list(self._entries)

    def source(self, slug: str) -> CourseSource | None:
        """Where the course lives, without loading it."""
        with self._lock:
            entry = self._entries.get(slug)
            return entry.source if entry is not None else None

    def entry(self, slug: str) -> CourseEntry | None:
        """The course, loaded (now, if this is its first use); None for an unknown slug."""
        with self._lock:
            entry = self._entries.get(slug)
            if entry is None:
                return None
            if entry.content is None or not entry.version:
                self._load(entry)
            if entry.content is not None:  # the course knows who it is (issue 47)
                entry.content.slug, entry.content.root = entry.slug, entry.source.folder
                entry.content.version = entry.version
            return entry

    def entries(self) -> list[CourseEntry]:
        """Every course, loaded, the first course first."""
        return [e for e in (self.entry(s) for s in self.slugs()) if e is not None]

    def content(self, slug: str) -> Course | None:
        """The served content of a course; None for an unknown slug."""
        entry = self.entry(slug)
        return entry.content if entry is not None else None

    def version(self, slug: str) -> str | None:
        """The served content version of a course; None for an unknown slug."""
        entry = self.entry(slug)
        return entry.version if entry is not None else None

    def _load(self, entry: CourseEntry) -> None:
        if entry.content is None:
            entry.content, entry.version = load_source(entry.source)
        else:  # content placed without its version: read the version only
            entry.version = content_version(entry.source.folder)
        entry.loaded_at = utcnow()

    def reload(self, slug: str) -> Course:
        """Re-read a course and serve it at once, new problems and all (the live reload of
        `make dev`; `refresh` is the careful one). Raises KeyError for an unknown slug."""
        with self._lock:
            entry = self._entries[slug]
            entry.content, entry.version = load_source(entry.source)
            entry.loaded_at, entry.refused = utcnow(), None
        heap.set_aside_again()
        found = self.entry(slug)  # the course knows its slug, folder and version
        assert found is not None and found.content is not None
        return found.content

    def add(self, source: CourseSource) -> RefreshResult:
        """Serve a new course (added at run time); a known slug is refreshed instead."""
        with self._lock:
            known = self._entries.get(source.slug)
            if known is not None and known.source.folder == source.folder:
                return self.refresh(source.slug)
            if known is not None:
                raise ValueError(
                    f"slug '{source.slug}' is already the course in {known.source.folder}"
                )
            entry = self._entries[source.slug] = CourseEntry(source)
            self._load(entry)
            assert entry.content is not None
            return RefreshResult(source.slug, True, entry.version, list(entry.content.problems))

    def refresh(self, slug: str) -> RefreshResult:
        """Re-read a course; applied unless the new version brings problems the served one lacks.

        Raises KeyError for an unknown slug.
        """
        with self._lock:
            entry = self._entries[slug]
            current = self.entry(slug)
            assert current is not None and current.content is not None
            meta = read_meta(entry.source.folder)
            version = content_version(entry.source.folder)
            if isinstance(meta, Problem):
                if entry.source.origin != "root" or not meta.message.startswith("missing"):
                    return self._refuse(entry, version, [meta])
                meta = entry.source.meta
            if meta.slug != slug:
                problem = Problem(
                    str(entry.source.folder / COURSE_FILE),
                    f"slug changed from '{slug}' to '{meta.slug}'; a course's slug is permanent "
                    f"(add the folder as a new course instead)",
                )
                return self._refuse(entry, version, [problem])
            candidate = load_course(entry.source.folder / "lessons", entry.source.exercises_dir)
            folder = entry.source.folder  # its exams, read against each version (hooks)
            served = [*current.content.problems, *course_problems(current.content, folder)]
            found = [*candidate.problems, *course_problems(candidate, folder)]
            known = {(p.path, p.message) for p in served}
            new = [p for p in found if (p.path, p.message) not in known]
            if new:
                return self._refuse(entry, version, found)
            entry.source = replace(entry.source, meta=meta)
            entry.content, entry.version, entry.loaded_at = candidate, version, utcnow()
            entry.refused = None
            heap.set_aside_again()
            log.info("course %s refreshed: version %s", slug, version)
            return RefreshResult(slug, True, version, list(candidate.problems))

    def _refuse(self, entry: CourseEntry, version: str, problems: list[Problem]) -> RefreshResult:
        entry.refused = Refused(version, problems, utcnow())
        for problem in problems:
            log.warning("course %s: refresh refused: %s", entry.slug, problem)
        return RefreshResult(entry.slug, False, version, problems)
