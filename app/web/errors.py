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
