"""Routers joined by their built routes serve and document exactly what `include_router` does."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.web import routing


def _openapi(app: FastAPI) -> dict[str, Any]:
    app.openapi_schema = None
    return app.openapi()


def test_the_app_documents_the_same_operations_as_with_include_router(
    monkeypatch: Any,
) -> None:
    joined = create_app()
    monkeypatch.setattr(routing, "_flat_routes", lambda router: None)  # the fallback
    included = create_app()
    assert _openapi(joined) == _openapi(included)
    paths = lambda app: sorted(  # noqa: E731
        (getattr(r, "path", ""), sorted(getattr(r, "methods", None) or [])) for r in app.routes
    )
    flat = paths(joined)
    assert len(flat) > 100
    assert "/instructor/gradebook" in {path for path, _ in flat}, "nested routers are joined"


def _answer() -> str:
    return "real"


def test_each_app_applies_its_own_dependency_overrides() -> None:
    router = APIRouter()

    @router.get("/who")
    def who(answer: str = Depends(_answer)) -> dict[str, str]:
        return {"answer": answer}

    outer = APIRouter()
    outer.include_router(router)
    first, second = FastAPI(), FastAPI()
    routing.include(first, outer)
    routing.include(second, outer)
    first.dependency_overrides[_answer] = lambda: "overridden"
    assert TestClient(first).get("/who").json() == {"answer": "overridden"}
    assert TestClient(second).get("/who").json() == {"answer": "real"}


def test_an_inclusion_that_adds_a_prefix_is_left_to_fastapi() -> None:
    inner = APIRouter()

    @inner.get("/x")
    def x() -> dict[str, int]:
        return {"x": 1}

    outer = APIRouter()
    outer.include_router(inner, prefix="/p")
    app = FastAPI()
    routing.include(app, outer)
    client = TestClient(app)
    assert client.get("/p/x").json() == {"x": 1}
    assert client.get("/x").status_code == 404
