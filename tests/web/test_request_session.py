"""A request's database session: one per request, closed as its response starts, whatever
the route did (issue 54 moved the closing out of FastAPI's generator dependencies)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI, HTTPException
from fastapi.responses import StreamingResponse
from fastapi.testclient import TestClient
from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from app.db import session_factory
from app.main import create_app
from app.users.models import Role, User
from app.users.service import create_user
from app.web.request_session import SessionDep, SessionsClosedMiddleware

SEEN: list[Session] = []


def _probe_routes(app: FastAPI) -> None:
    """Routes that keep their session where the test can look at it after they ran."""

    @app.get("/_probe/stream")
    def stream(session: SessionDep) -> StreamingResponse:
        user = session.scalars(select(User)).one()
        SEEN.append(session)

        def body() -> Iterator[bytes]:  # sent after the route returned
            yield b"open\n" if session.in_transaction() else b"closed\n"
            yield b"detached\n" if inspect(user).detached else b"attached\n"

        return StreamingResponse(body(), media_type="text/plain")

    @app.get("/_probe/fails")
    def fails(session: SessionDep) -> None:
        session.scalars(select(User)).one()
        SEEN.append(session)
        raise HTTPException(409, "no")

    @app.get("/_probe/twice")
    async def twice(first: SessionDep, second: SessionDep) -> bool:
        return first is second


@pytest.fixture
def probe(data_dir: Path) -> Iterator[TestClient]:
    with session_factory()() as session:
        create_user(
            session=session, email="s@example.org", password="correct horse", role=Role.student
        )
    app = create_app()
    _probe_routes(app)
    SEEN.clear()
    with TestClient(app) as client:
        yield client


def test_the_session_is_closed_before_the_response_body_is_sent(probe: TestClient) -> None:
    answer = probe.get("/_probe/stream")
    assert answer.status_code == 200
    assert answer.text == "closed\ndetached\n"


def test_a_route_that_fails_leaves_no_session_open(probe: TestClient) -> None:
    assert probe.get("/_probe/fails").status_code == 409
    (session,) = SEEN
    assert not session.in_transaction()
    assert not list(session.identity_map.values())  # closed: nothing kept


def test_one_session_per_request_for_every_dependency_that_asks(probe: TestClient) -> None:
    assert probe.get("/_probe/twice").json() is True


def test_an_app_without_the_closing_middleware_is_told_so_at_its_first_request() -> None:
    app = FastAPI()

    @app.get("/")
    def route(session: SessionDep) -> None:
        """Never runs."""

    with pytest.raises(RuntimeError, match="SessionsClosedMiddleware"):
        TestClient(app).get("/")
    app = FastAPI()
    app.add_middleware(SessionsClosedMiddleware)

    @app.get("/")
    def fine(session: SessionDep) -> bool:
        return isinstance(session, Session)

    assert TestClient(app).get("/").json() is True
