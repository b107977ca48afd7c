"""Application factory: wires domains, middleware, static files and the loaded course."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.assessments import routes as assessment_routes
from app.authoring import course_admin
from app.authoring import editor_pages as authoring_editor_pages
from app.authoring import explain_routes as authoring_explain_routes
from app.authoring import pages as authoring_pages
from app.authoring import routes as authoring_routes
from app.config import ROOT, get_settings
from app.content.render import keep_rendered_content
from app.courses import offerings_admin, roles_admin, teach_routes
from app.courses import routes as course_routes
from app.courses.prefix import CoursePrefixMiddleware
from app.courses.service import app_registry, course_or_404, start_watcher
from app.grading.runtime import JobRuntime
from app.grading.service import get_grader, prime_in_background, shutdown_grader
from app.instructor import routes as instructor_routes
from app.jobkinds import wire_kinds
from app.jobs.logs import configure_logging
from app.lti import admin_routes as lti_admin_routes
from app.lti import link_routes as lti_link_routes
from app.lti import routes as lti_routes
from app.offerings import routes as offering_routes
from app.offerings.access import OfferingPrefixMiddleware
from app.problems import routes as problem_routes
from app.progress import hint_routes
from app.quiz import routes as quiz_routes
from app.site import exercise_pages, metrics
from app.site import history as history_routes
from app.site import routes as content_routes
from app.submissions import intake
from app.submissions import routes as submission_routes
from app.users import routes as user_routes
from app.users import session_cache
from app.users.ratelimit import auth_limiter
from app.web import docs, heap
from app.web.capacity import Admission, AdmissionMiddleware
from app.web.csrf import install_csrf
from app.web.errors import install_error_handlers
from app.web.request_session import SessionsClosedMiddleware
from app.web.routing import include
from app.web.security import SecurityHeadersMiddleware
from app.web.templating import compile_templates, keep_compiled_templates
from app.wiring import wire

log = logging.getLogger(__name__)
STATIC_DIR = ROOT / "frontend" / "dist"
WEB_DRAIN_SECONDS = 10.0  # running jobs get this long to finish at shutdown; the rest re-queue


def _compile_then_set_aside() -> None:
    try:
        compile_templates()
    finally:
        heap.set_aside()  # start-up's objects, templates included, out of every later collection


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Load content once at start-up; a broken file is logged, never fatal."""
    settings = get_settings()
    keep_rendered_content(settings.render_cache_path)  # a restart reads it (issue 54)
    # The grader's interpreters start first, on the other core, while content loads: a restart's
    # first JAX verdict waits for them (issue 54).
    warming = settings.grades_in_web and settings.pool_warm_on_start
    grader = asyncio.create_task(asyncio.to_thread(get_grader, prime=False)) if warming else None
    course_watcher = await asyncio.to_thread(start_watcher, app)  # every course (issue 27)
    registry = app_registry(app)
    await asyncio.to_thread(registry.content, registry.first_slug)  # the first, loaded now
    if not (STATIC_DIR / "style.css").is_file():
        log.warning("front-end assets are missing in %s: run `make assets`", STATIC_DIR)
    configure_logging(settings.log_format)
    # Request handlers' threads: as many as the web pool has connections for, and no more.
    anyio.to_thread.current_default_thread_limiter().total_tokens = settings.web_threads
    # Jobs: embedded threads, or (REDIS_URL) only queue them for `worker` processes.
    jobs = JobRuntime(settings, grade=settings.grades_in_web)
    app.state.jobs = jobs
    app.state.queue = jobs.queue
    app.state.status_watcher = jobs.watcher
    await asyncio.to_thread(jobs.start)
    # In the background: a page asked for meanwhile compiles its own template as before. After a
    # restart they load compiled from the data dir instead (issue 54).
    keep_compiled_templates(settings.template_cache_path)
    templates_compiled = asyncio.create_task(asyncio.to_thread(_compile_then_set_aside))
    await jobs.watcher.start()
    session_cache.start_listening()  # scale-out: each web process hears the others' logouts
    if grader is not None:
        await grader
        prime_in_background()  # once started: beside the imports it held /healthz back
    try:
        yield
    finally:
        await templates_compiled
        if course_watcher is not None:
            course_watcher.stop()
        await jobs.watcher.stop()
        await asyncio.to_thread(session_cache.stop_listening)
        await asyncio.to_thread(jobs.stop, WEB_DRAIN_SECONDS)
        shutdown_grader()


def create_app() -> FastAPI:
    """Build the FastAPI application."""
    app = FastAPI(
        title="Positional embeddings course",
        version="0.1.0",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    settings = get_settings()
    wire()  # events, locks and scores across floors, before any request or job (app/wiring.py)
    wire_kinds()  # the typed jobs of the upper floors (regrade, check, preview_run)
    app.state.course_lookup = course_or_404  # CourseDep of /courses/{course}/ (content is below)
    app.state.submission_limiter, app.state.submission_repeats = intake.new_guards()
    app.state.auth_limiter = auth_limiter()  # AuthLimiterDep: failed logins and sign-ups
    app.add_middleware(SessionsClosedMiddleware)  # innermost: closes each request's session
    install_csrf(app)
    # Before any other work: a request waiting for its turn holds nothing but its socket
    # (issue 23); only the security headers wrap it, so a 503 carries them too.
    app.state.admission = Admission(settings.web_slots)
    app.add_middleware(
        AdmissionMiddleware,
        admission=app.state.admission,
        wait_seconds=settings.web_queue_seconds,
        max_waiting=settings.web_queue_max,
        retry_after=settings.web_retry_after_seconds,
    )
    app.add_middleware(OfferingPrefixMiddleware)  # rewrites the path only: no I/O
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(CoursePrefixMiddleware)  # /courses/{course}/... (app/courses/prefix.py)
    install_error_handlers(app)
    app.mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static")
    include(app, content_routes.router)
    include(app, course_routes.router)
    include(app, course_admin.router)
    include(app, authoring_routes.router)
    include(app, authoring_pages.router)
    include(app, authoring_editor_pages.router)
    include(app, authoring_explain_routes.router)
    include(app, offerings_admin.router)
    include(app, teach_routes.router)
    include(app, roles_admin.router)
    include(app, instructor_routes.router)
    include(app, submission_routes.router)
    include(app, exercise_pages.router)
    include(app, hint_routes.router)
    include(app, history_routes.router)
    include(app, user_routes.router)
    include(app, quiz_routes.router)
    include(app, problem_routes.router)
    include(app, assessment_routes.router)
    include(app, lti_routes.router)
    include(app, lti_admin_routes.router)
    include(app, lti_link_routes.router)
    include(app, offering_routes.router)
    include(app, docs.router)
    include(app, metrics.router)
    return app
