"""Jinja2 environment shared by every domain's pages (autoescaping on)."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemBytecodeCache, Template, TemplateError, pass_context
from jinja2.bccache import Bucket
from markupsafe import Markup
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


def staff_base(request: Request) -> str:
    """Where a staff page's links start: the course and the offering it was served under
    (`/courses/{course}`, `/offerings/{id}`, both or neither), so no link leaves them."""
    offering = request.scope.get("offering_id")
    base = request.scope.get("course_base") or ""
    return base + (f"/offerings/{offering}" if offering is not None else "")


templates.env.globals["staff_base"] = staff_base

# Per template (a new Template object when `serve --reload` sees it change), per view object.
_FRAGMENTS: weakref.WeakKeyDictionary[Template, weakref.WeakKeyDictionary[Any, Markup]] = (
    weakref.WeakKeyDictionary()
)


def fragment(item: Any, name: str) -> Markup:
    """`item` rendered with the template `name` the first time it is shown, then from memory.

    Why: a lesson's quiz form is the same for every student who gets the same numbers, and
    rendering its questions cost a third of a lesson page's time (issue 23). `item` must be an
    immutable view that its owner keeps while it is the current one (app/quiz/views.py); the
    template may use `item` only, nothing of the page or the request.
    """
    template = templates.env.get_template(name)
    done = _FRAGMENTS.get(template)
    if done is None:
        done = _FRAGMENTS.setdefault(template, weakref.WeakKeyDictionary())
    html = done.get(item)
    if html is None:
        html = Markup(template.render(item=item))  # noqa: S704 - an autoescaping template
        done[item] = html
    return html


templates.env.filters["fragment"] = fragment

# (template, key) -> (the values the key names by identity, held so no id is reused, the HTML)
_KEYED: OrderedDict[tuple[Template, tuple[Any, ...]], tuple[list[Any], Markup]] = OrderedDict()
KEYED_MOST = 4096  # entries: a course's items times the few states each shows, with room


def _key(value: Any) -> Any:
    """A value by equality when it is hashable (a student's progress), else by identity (a
    loaded lesson: content objects live as long as their content version)."""
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value), value)


def keyed(name: str, **values: Any) -> Markup:
    """The template `name` rendered with `values` only, once per distinct set of values.

    Why: a home page lists every lesson and exercise, and each item's HTML depends only on
    the item, the student's standing in it and the course's prefix, which most students share
    (issue 54). Values are compared by equality when hashable and by identity otherwise, so a
    new content version (new objects) renders anew; the least recently used entries go first.
    """
    template = templates.env.get_template(name)
    key = (template, tuple((k, _key(v)) for k, v in sorted(values.items())))
    found = _KEYED.get(key)
    if found is not None:
        with _KEYED_LOCK, contextlib.suppress(KeyError):  # another thread may just evict it
            _KEYED.move_to_end(key)
        return found[1]
    html = Markup(template.render(**values))  # noqa: S704 - an autoescaping template
    with _KEYED_LOCK:
        _KEYED[key] = (list(values.values()), html)
        while len(_KEYED) > KEYED_MOST:
            _KEYED.popitem(last=False)
    return html


_KEYED_LOCK = threading.Lock()
templates.env.globals["keyed"] = keyed


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
    """Render a template with the request's user available as `user`."""
    context.setdefault("user", getattr(request.state, "user", None))
    context.setdefault(
        "course_base", request.scope.get("course_base", "")
    )  # app/web/course_urls.py
    return templates.TemplateResponse(request, name, context, status_code=status_code)


class _CompiledTemplates(FileSystemBytecodeCache):
    """Jinja's compiled templates on disk (keyed by each source's checksum); one that cannot
    be written only makes the next start compile again."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError as exc:  # the page compiles its template as without a cache
            log.warning("could not read a compiled template in %s: %s", self.directory, exc)

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError as exc:
            log.warning("could not keep a compiled template in %s: %s", self.directory, exc)


def _compiler_key(env: Environment) -> str:
    """What besides a template's source decides its compiled code: Jinja's version and the
    environment's syntax and output settings (a change starts a new cache, never a stale one)."""
    escape = env.autoescape
    parts = (
        jinja2.__version__,
        *(getattr(env, name) for name in _COMPILER_SETTINGS),
        sorted(env.extensions),
        escape if isinstance(escape, bool) else getattr(escape, "__qualname__", repr(escape)),
        env.finalize is not None,
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


_COMPILER_SETTINGS = (
    "block_start_string",
    "block_end_string",
    "variable_start_string",
    "variable_end_string",
    "comment_start_string",
    "comment_end_string",
    "line_statement_prefix",
    "line_comment_prefix",
    "trim_blocks",
    "lstrip_blocks",
    "newline_sequence",
    "keep_trailing_newline",
    "optimized",
    "is_async",
)


def keep_compiled_templates(directory: Path) -> None:
    """Load compiled templates from `directory` and keep new ones there.

    Why: compiling the 73 page templates costs 0.8 s of CPU (2026-11-28), which a restarted
    server spent in the background while its first requests waited for the same core; loading
    them compiled costs 0.03 s (issue 54)."""
    where = directory / _compiler_key(templates.env)
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.warning("templates are compiled at each start: cannot use %s: %s", where, exc)
        templates.env.bytecode_cache = None
        return
    templates.env.bytecode_cache = _CompiledTemplates(str(where))


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
