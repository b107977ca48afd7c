"""Friendly error pages for people, JSON errors for scripts."""

from __future__ import annotations

import logging

import sqlalchemy.exc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.config import get_settings
from app.errors import DomainError
from app.web.capacity import BUSY_DETAIL, BUSY_PAGE
from app.web.outages import (
    CAUSES,
    OUTAGE_DETAIL,
    OUTAGE_PAGE,
    Outage,
    outage_classes,
    outage_of,
)
from app.web.templating import render

log = logging.getLogger(__name__)

TITLES = {
    401: "Please log in",
    403: "Not allowed",
    404: "Page not found",
    405: "Method not allowed",
    413: "Too large",
    422: "Invalid request",
    500: "Something went wrong",
}
BODY_NOT_TEXT = "The request body is not valid JSON: it is not UTF-8 text."
SERVER_ERROR = "Something went wrong on our side. Nothing already saved is lost; please try again."
SERVER_ERROR_PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{TITLES[500]}</title>
<link rel="stylesheet" href="/static/style.css"></head>
<body><main class="error-page"><h1>{TITLES[500]}</h1><p>{SERVER_ERROR}</p></main></body></html>
"""


def wants_json(request: Request) -> bool:
    """API paths and clients that ask for JSON get JSON errors."""
    if request.url.path.startswith("/api/") or request.url.path in {"/healthz", "/metrics"}:
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def busy_response(request: Request) -> Response:
    """503 with Retry-After, worded for people or for scripts."""
    retry = get_settings().web_retry_after_seconds
    headers = {"retry-after": str(retry), "cache-control": "no-store"}
    if wants_json(request):
        return JSONResponse(
            {"detail": BUSY_DETAIL.format(retry=retry)}, status_code=503, headers=headers
        )
    return HTMLResponse(BUSY_PAGE.format(retry=retry), status_code=503, headers=headers)


def outage_response(request: Request, outage: Outage) -> Response:
    """503 with Retry-After: a dependency is away; nothing saved is lost, try again soon."""
    retry = get_settings().web_retry_after_seconds
    headers = {"retry-after": str(retry), "cache-control": "no-store"}
    cause = CAUSES[outage]
    if wants_json(request):
        detail = OUTAGE_DETAIL.format(cause=cause, retry=retry)
        return JSONResponse({"detail": detail}, status_code=503, headers=headers)
    page = OUTAGE_PAGE.format(cause=cause, retry=retry)
    return HTMLResponse(page, status_code=503, headers=headers)


def server_error_response(request: Request) -> Response:
    """A 500 that still answers in the client's language, without a stack trace."""
    if wants_json(request):
        return JSONResponse({"detail": SERVER_ERROR}, status_code=500)
    return HTMLResponse(SERVER_ERROR_PAGE, status_code=500)


def install_error_handlers(app: FastAPI) -> None:
    """Register handlers so no error shows a stack trace or a bare 'Not Found'."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):
            # FastAPI's own answer to a JSON body that is not text: a 400 no route declares.
            exc = StarletteHTTPException(422, BODY_NOT_TEXT)
        if wants_json(request):
            return JSONResponse(
                {"detail": exc.detail},
                status_code=exc.status_code,
                headers=getattr(exc, "headers", None),
            )
        detail = exc.detail if exc.status_code != 404 or exc.detail != "Not Found" else None
        return render(
            request,
            "error.html",
            status_code=exc.status_code,
            title=TITLES.get(exc.status_code, "Error"),
            detail=detail,
            status=exc.status_code,
        )

    @app.exception_handler(DomainError)
    async def domain_error(request: Request, exc: DomainError) -> Response:
        """A domain's refusal answers as the route's own HTTPException would: one place."""
        refusal = StarletteHTTPException(exc.status, exc.message, headers=exc.headers)
        return await http_error(request, refusal)

    @app.exception_handler(sqlalchemy.exc.TimeoutError)
    async def database_busy(request: Request, exc: sqlalchemy.exc.TimeoutError) -> Response:
        """No connection came in time: the server is full, not broken; say when to come back."""
        log.warning("no database connection in time for %s: %s", request.url.path, exc)
        return busy_response(request)

    async def dependency_away(request: Request, exc: Exception) -> Response:
        """The database, the queue or the disk is away: 503, never a 500 (issue 52)."""
        outage = outage_of(exc)
        if outage is None:
            raise exc  # an ordinary failure: the server error handler below answers it
        log.warning("%s away during %s: %s", outage, request.url.path, exc)
        return outage_response(request, outage)

    for kind in outage_classes(redis_url=get_settings().redis_url):
        app.add_exception_handler(kind, dependency_away)

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> Response:
        """Last resort, also for errors raised in middleware: an outage still answers 503."""
        outage = outage_of(exc)
        if outage is not None:
            log.warning("%s away during %s: %s", outage, request.url.path, exc)
            return outage_response(request, outage)
        return server_error_response(request)  # Starlette logs the traceback after it

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        errors = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        if wants_json(request):
            return JSONResponse({"detail": errors}, status_code=422)
        return render(
            request,
            "error.html",
            status_code=422,
            title=TITLES[422],
            detail="; ".join(e["msg"] for e in errors),
            status=422,
        )
