"""Routers joined to an app by their ready-built routes, not rebuilt for every app.

Why: FastAPI (0.16x) includes a router lazily and, on the app's first request, builds every
included route again (signatures, dependencies, a pydantic field per declared response): about
0.1-0.2 s of CPU per app, paid by the first student after a start and by every test that makes
an app. Our routers are included as they are (no prefix, tags, dependencies or responses added),
so the routes built once at import are already right: each app gets a shallow copy whose handler
knows the app (its `dependency_overrides`). Any other FastAPI falls back to `include_router`.
"""

from __future__ import annotations

import copy
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi import routing as fastapi_routing
from fastapi.routing import APIRoute


def _plain(include_context: Any) -> bool:
    """Whether an inclusion adds nothing to its routes, so they can be used unchanged."""
    return (
        not include_context.prefix
        and not include_context.tags
        and not include_context.dependencies
        and not include_context.responses
        and not include_context.callbacks
        and include_context.deprecated is None
        and include_context.include_in_schema
        and include_context.max_body_size is None
    )


def _flat_routes(router: APIRouter) -> list[Any] | None:
    """The router's routes with nested plain inclusions opened; None when one cannot be."""
    found: list[Any] = []
    for route in router.routes:
        inner = getattr(route, "original_router", None)
        if inner is None:
            found.append(route)
            continue
        context = getattr(route, "include_context", None)
        if context is None or not _plain(context):
            return None
        nested = _flat_routes(inner)
        if nested is None:
            return None
        found.extend(nested)
    return found


def _for_app(route: APIRoute, app: FastAPI) -> APIRoute:
    """A copy of a built route whose handler applies this app's dependency overrides."""
    clone = copy.copy(route)
    clone.dependency_overrides_provider = app
    handler = fastapi_routing.request_response(clone.get_route_handler())
    limit_body = getattr(fastapi_routing, "wrap_app_with_body_limit")  # noqa: B009 - not exported
    clone.app = limit_body(handler, clone.max_body_size)
    return clone


def include(app: FastAPI, router: APIRouter) -> None:
    """Add the router's routes to the app, ready to serve (see the module's docstring)."""
    known = all(
        hasattr(fastapi_routing, name)
        for name in ("_IncludedRouter", "request_response", "wrap_app_with_body_limit")
    )
    routes = _flat_routes(router) if known else None
    if routes is None:
        app.include_router(router)
        return
    for route in routes:
        app.router.routes.append(_for_app(route, app) if isinstance(route, APIRoute) else route)
