"""Jinja2 environment shared by every domain's pages (autoescaping on)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import TemplateError, pass_context
from starlette.responses import Response

from app.config import ROOT
from app.web.course_urls import prefixed

log = logging.getLogger(__name__)
templates = Jinja2Templates(directory=str(ROOT / "templates"))
# Templates change with a deploy, not while serving: no file check on every page (the dev
# server, `serve --reload`, turns it back on).
templates.env.auto_reload = False


@pass_context
def course_url(context: Any, url: str) -> str:
    """A link built in Python (/lessons/..., /login?next=...) kept inside the page's course."""
    base = context.get("course_base") or ""
    return prefixed(url, base) if base and url else url


templates.env.filters["course_url"] = course_url


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
    """Render a template with the request's user available as `user`."""
    context.setdefault("user", getattr(request.state, "user", None))
    context.setdefault(
        "course_base", request.scope.get("course_base", "")
    )  # app/web/course_urls.py
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def compile_templates() -> int:
    """Compile every page template once, so the first class after a start does not pay for it.

    Why: compiling all of them costs about half a second of CPU, which the first few hundred
    page loads after a restart would otherwise share (measured in the `pages` benchmark).
    """
    names = templates.env.list_templates(extensions=["html"])
    compiled = 0
    for name in names:
        try:
            templates.env.get_template(name)
            compiled += 1
        except TemplateError:  # the page that uses it says so when asked; the rest still serve
            log.exception("template %s does not compile", name)
    return compiled
