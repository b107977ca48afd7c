"""A web request's database session: opened by a dependency, closed as the response starts.

Why apart from app/db.py: the database layer serves commands and the grader's start too, which
need no web framework (importing it took a tenth of a second before `serve` could start its
grader, issue 54).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db import session_factory

_REQUEST_SESSIONS = (
    "app.web.request_sessions"  # in the ASGI scope: the request's sessions, to close
)


async def get_session(request: Request) -> Session:
    """FastAPI dependency: one session per request, closed as its response starts
    (`SessionsClosedMiddleware`), so a slow reader or a long event stream never keeps it.

    Not a generator dependency: FastAPI wraps each in a context manager and a shielded cancel
    scope, about 5% of a page's CPU (issue 54), for what is one call to `close`. Async on
    purpose: opening a session does no I/O, so it needs no trip to the thread pool.
    """
    sessions = request.scope.get(_REQUEST_SESSIONS)
    if sessions is None:
        raise RuntimeError(
            "This app has no SessionsClosedMiddleware (app/web/request_session.py), so nothing "
            "would close its requests' database sessions: add it with app.add_middleware."
        )
    session = session_factory()()
    sessions.append(session)
    return session


class SessionsClosedMiddleware:
    """Closes the sessions `get_session` opened for a request as its response starts, or
    when the request ends without one (an error): the connection goes back to the pool and
    anything not committed is rolled back."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        sessions: list[Session] = []
        scope[_REQUEST_SESSIONS] = sessions

        async def closing_first(message: Message) -> None:
            if message["type"] == "http.response.start":
                _close_all(sessions)
            await send(message)

        try:
            await self.app(scope, receive, closing_first)
        finally:
            _close_all(sessions)


def _close_all(sessions: list[Session]) -> None:
    while sessions:
        sessions.pop().close()


SessionDep = Annotated[Session, Depends(get_session)]
