"""/courses/{course}/... (and /api/courses/{course}/...) serves the pages and APIs of that
course through the usual routes.

Why a path rewrite: every page, form and API of a course (lessons, quizzes, exercises, drafts,
hints, submissions) then works for every course with one set of routes, and the old URLs keep
meaning the first course. The course is put in the ASGI scope, where `CourseDep` reads it.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.course_urls import PREFIX, SCOPE_BASE, SCOPE_COURSE, prefixed, split, split_api


class CoursePrefixMiddleware:
    """Rewrites /courses/{known course}/rest to /rest, marking the request with the course."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        found = split(scope["path"]) or split_api(scope["path"])
        if found is None or found[0] not in _known(scope):
            await self.app(scope, receive, send)
            return
        slug, rest = found
        base = PREFIX + slug
        inner = dict(scope)
        inner["path"], inner["raw_path"] = rest, rest.encode()
        inner[SCOPE_COURSE], inner[SCOPE_BASE] = slug, base

        async def send_prefixed(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                headers = MutableHeaders(scope=message)
                if "location" in headers:
                    headers["location"] = prefixed(headers["location"], base)
            await send(message)

        await self.app(inner, receive, send_prefixed)


def _known(scope: Scope) -> list[str]:
    from app.courses.service import app_registry

    app = scope.get("app")
    return app_registry(app).slugs() if app is not None else []
