"""`serve --reload`: content edits show up on the next page load, without a restart.

Uvicorn's own reloader (without the optional watchfiles package) only watches *.py files and
restarts the whole process, grader pool included. Lessons and exercises are data, so a small
poller re-reads them in place and makes the grader forget the tests of a changed exercise.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from app.config import get_settings
from app.courses.service import reload_course
from app.grading.service import current_grader
from app.instructor.regrade import forget_exercise
from app.main import create_app

log = logging.getLogger(__name__)
WATCHED_SUFFIXES = frozenset({".md", ".yaml", ".yml", ".py"})
Snapshot = dict[Path, tuple[float, int]]


def snapshot(roots: list[Path]) -> Snapshot:
    """Modification time and size of every content file under the roots."""
    found: Snapshot = {}
    for root in roots:
        if not root.is_dir():
            continue
        for path in root.rglob("*"):
            if path.suffix not in WATCHED_SUFFIXES or "__pycache__" in path.parts:
                continue
            try:
                stat = path.stat()
            except OSError:  # removed while we looked
                continue
            found[path] = (stat.st_mtime, stat.st_size)
    return found


class ContentWatcher:
    """Polls the content folders; calls `on_change` with the files that changed."""

    def __init__(
        self,
        roots: list[Path],
        on_change: Callable[[list[Path]], None],
        interval: float = 1.0,
    ) -> None:
        self.roots = roots
        self.on_change = on_change
        self.interval = interval
        self._seen = snapshot(roots)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> list[Path]:
        """Compare with the last look; report and remember what changed."""
        now = snapshot(self.roots)
        changed = sorted(
            p for p in now.keys() | self._seen.keys() if now.get(p) != self._seen.get(p)
        )
        self._seen = now
        if changed:
            try:
                self.on_change(changed)
            except Exception:
                log.exception("reloading content failed")
        return changed

    def start(self) -> None:
        """Poll on a daemon thread until stop()."""
        self._thread = threading.Thread(target=self._run, daemon=True, name="content-watch")
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.check()

    def stop(self) -> None:
        """Stop polling."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


def exercise_slugs(changed: list[Path], exercises_dir: Path) -> set[str]:
    """The exercise folders that the changed files belong to."""
    slugs = set()
    for path in changed:
        try:
            relative = path.relative_to(exercises_dir)
        except ValueError:
            continue
        if len(relative.parts) > 1:
            slugs.add(relative.parts[0])
    return slugs


def reloader_for(app: FastAPI) -> Callable[[list[Path]], None]:
    """What to do on a change: swap in freshly loaded content, drop the grader's old tests."""
    exercises_dir = get_settings().exercises_dir

    def on_change(changed: list[Path]) -> None:
        course = reload_course(request_app=app)
        grader = current_grader()
        for slug in exercise_slugs(changed, exercises_dir):
            if grader is not None:
                forget_exercise(grader, slug)
        names = ", ".join(p.name for p in changed[:5])
        log.info("content reloaded (%s); %d problem(s)", names, len(course.problems))

    return on_change


def with_content_watcher(app: FastAPI, interval: float = 1.0) -> FastAPI:
    """Run a content watcher for as long as the app runs."""
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(running: FastAPI) -> AsyncIterator[None]:
        async with inner(running):
            settings = get_settings()
            watcher = ContentWatcher(
                [settings.lessons_dir, settings.exercises_dir], reloader_for(running), interval
            )
            watcher.start()
            running.state.content_watcher = watcher
            try:
                yield
            finally:
                watcher.stop()

    app.router.lifespan_context = lifespan
    return app


def create_dev_app() -> FastAPI:
    """The app for `serve --reload`: the normal app plus the content watcher."""
    from app.web.templating import templates

    templates.env.auto_reload = True  # an edited template shows on the next page
    return with_content_watcher(create_app())
