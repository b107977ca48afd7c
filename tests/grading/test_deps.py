"""The grader as a FastAPI dependency: routes take `GraderDep` (or `RunningGraderDep`)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.grading import service
from app.grading.deps import GraderDep, RunningGraderDep
from app.grading.service import process_grader, running_grader


class FakeGrader:
    """Stands in for this process's grader."""

    def stop(self) -> None:
        """Nothing to stop."""


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/grader")
    def grader_id(grader: GraderDep) -> int:
        return id(grader)

    @app.get("/running")
    def running(grader: RunningGraderDep) -> bool:
        return grader is not None

    return app


def test_grader_dep_is_the_process_grader(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeGrader()
    monkeypatch.setattr(service, "_grader", fake)
    with TestClient(_app()) as client:
        assert client.get("/grader").json() == id(fake)
        assert client.get("/running").json() is True


def test_running_grader_dep_never_starts_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "_grader", None)
    with TestClient(_app()) as client:
        assert client.get("/running").json() is False
    assert service._grader is None


def test_a_test_can_replace_the_grader() -> None:
    fake = FakeGrader()
    app = _app()
    app.dependency_overrides[process_grader] = lambda: fake
    with TestClient(app) as client:
        assert client.get("/grader").json() == id(fake)


def test_a_test_can_replace_the_running_grader() -> None:
    app = _app()
    app.dependency_overrides[running_grader] = lambda: None
    with TestClient(app) as client:
        assert client.get("/running").json() is False
