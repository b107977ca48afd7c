"""API docs page served from bundled Swagger UI files: no CDN, no inline script."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.web.templating import render

router = APIRouter()


@router.get("/docs", include_in_schema=False)
def api_docs(request: Request) -> Response:
    """Interactive OpenAPI docs."""
    return render(request, "docs.html")
