"""The registry of a web process (app.state.courses) and of other processes (CLI, workers)."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request

from app.config import get_settings
from app.content.loader import Course
from app.courses import store
from app.courses.registry import CourseSource, Registry, discover
from app.db import Purpose, session_factory

log = logging.getLogger(__name__)
_process_lock = threading.Lock()
_process_registry: tuple[object, Registry] | None = None  # (settings it was built for, registry)


def extra_dirs(kind: Purpose = "web") -> list[tuple[Path, str]]:
    """COURSE_DIRS, then the folders added at run time (from the database)."""
    settings = get_settings()
    found: list[tuple[Path, str]] = [(p, "setting") for p in settings.course_dirs]
    with session_factory(kind)() as session:
        found.extend(store.added_folders(session))
    return found


def build_registry(*, kind: Purpose = "web") -> Registry:
    """Discover every course from the settings and the database (content loads on first use)."""
    sources, problems = discover(get_settings().content_dir, extra_dirs(kind))
    for problem in problems:
        log.warning("course problem: %s", problem)
    return Registry(sources, problems)


def process_registry() -> Registry:
    """This process's registry (the CLI, a worker): built on first use."""
    global _process_registry
    settings = get_settings()
    with _process_lock:
        if _process_registry is None or _process_registry[0] is not settings:
            _process_registry = (settings, build_registry(kind="background"))
        return _process_registry[1]


def reset_process_registry() -> None:
    """Forget the process registry (tests change settings; a worker sees a new course)."""
    global _process_registry
    with _process_lock:
        _process_registry = None


def exercises_dir_for(slug: str | None) -> Path:
    """The exercise folder of a course by slug, for the grader; the first course's when unknown.

    An unknown slug re-reads the course list once (added since this process started).
    """
    settings = get_settings()
    if slug is None:
        return settings.exercises_dir
    source = process_registry().source(slug)
    if source is None:
        reset_process_registry()
        source = process_registry().source(slug)
    if source is None or source.origin == "root":
        return settings.exercises_dir
    return source.exercises_dir


def app_registry(app: Any) -> Registry:
    """The web app's registry, built on first use (tests that skip the lifespan get one too)."""
    registry: Registry | None = getattr(app.state, "courses", None)
    if registry is None:
        with _process_lock:
            registry = getattr(app.state, "courses", None)
            if registry is None:
                registry = app.state.courses = build_registry()
                _adopt(registry)
    return registry


def _adopt(registry: Registry) -> None:
    """Make the web app's registry this process's too (the caller holds `_process_lock`), so
    what a lower floor looks up by slug (an exam's window, a version) is the content served,
    with its refreshes, not a second copy read once."""
    global _process_registry
    _process_registry = (get_settings(), registry)


def request_registry(request: Request) -> Registry:
    """The registry of the app serving this request."""
    return app_registry(request.app)


def course_or_404(request: Request, slug: str | None) -> Course:
    """The content of the named course (None: the first course), or 404 with the known slugs."""
    registry = request_registry(request)
    content = registry.content(registry.first_slug if slug is None else slug)
    if content is None:
        known = ", ".join(registry.slugs())
        raise HTTPException(404, f"There is no course called '{slug}'. Courses: {known}.")
    return content


def reload_course(*, request_app: Any) -> Course:
    """Re-read the first course from disk and serve it now, problems and all (live reload)."""
    registry = app_registry(request_app)
    return registry.reload(registry.first_slug)


def content_of(request: Request, slug: str, fallback: Course) -> Course:
    """The content of the course a stored row belongs to (the page's course if it is gone)."""
    if slug == request.scope.get("course"):
        return fallback
    return request_registry(request).content(slug) or fallback


def graded_in(request: Request, course_slug: str | None = None) -> tuple[str, str | None]:
    """(course slug, content version served now) for a row graded now: the course named,
    else the page's (/courses/{course}/...), else the first course."""
    registry = request_registry(request)
    slug = course_slug or request.scope.get("course") or registry.first_slug
    return slug, registry.version(slug)


class Watcher:
    """Picks up courses added and refreshes asked for by other processes (CLI, admin page)."""

    def __init__(self, registry: Registry, interval: float) -> None:
        self.registry = registry
        self.interval = interval
        self._seen: dict[str, dt.datetime] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Remember the marks already there, then look again every `interval` seconds."""
        with session_factory("background")() as session:
            self._seen = store.refresh_marks(session)
        self._thread = threading.Thread(target=self._loop, daemon=True, name="course-watch")
        self._thread.start()

    def seen(self, slug: str, at: dt.datetime) -> None:
        """A refresh this process has applied itself."""
        self._seen[slug] = at

    def stop(self) -> None:
        """Stop looking."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # the database may be away for a moment: next round
                log.exception("could not check for course changes")

    def check(self) -> list[str]:
        """Serve new folders and apply refreshes asked for since the last look; their slugs."""
        with session_factory("background")() as session:
            marks = store.refresh_marks(session)
            added = store.added_folders(session)
        known = {s.folder for s in (self.registry.source(x) for x in self.registry.slugs()) if s}
        sources, _ = discover(get_settings().content_dir, [a for a in added])
        done = []
        for source in sources:
            if source.folder not in known and source.slug not in self.registry.slugs():
                self._add(source)
                done.append(source.slug)
        for slug, at in marks.items():
            if at > self._seen.get(slug, dt.datetime.min.replace(tzinfo=at.tzinfo)):
                self._seen[slug] = at
                if slug in self.registry.slugs() and slug not in done:
                    log.info(self.registry.refresh(slug).message)
                    done.append(slug)
        return done

    def _add(self, source: CourseSource) -> None:
        try:
            log.info(self.registry.add(source).message)
        except ValueError as exc:
            log.warning("course %s not added: %s", source.folder, exc)


def start_watcher(app: Any) -> Watcher | None:
    """Build the app's registry and, unless COURSE_POLL_SECONDS is 0, start watching."""
    registry = app_registry(app)
    interval = get_settings().course_poll_seconds
    if interval <= 0:
        return None
    watcher = app.state.course_watcher = Watcher(registry, interval)
    watcher.start()
    return watcher
