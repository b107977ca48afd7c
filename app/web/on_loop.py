"""Where a page's database work runs: on the event loop over SQLite, in a request thread over
PostgreSQL.

Why: on SQLite (the one-machine default) a page's reads are calls into a local file that never
wait for a writer (WAL), so handing the page to a request thread bought nothing and cost the
most CPU of all its parts: the event loop and the thread take turns on the interpreter lock,
and under a class's load that was a third of a page's CPU (issue 54; docs/benchmarks.md).
On PostgreSQL every statement waits on the network, and a thread lets the others go on
meanwhile. A page whose turn comes while another connection holds this process's SQLite writer
lock (app/sqlite_file.py) runs in a thread, as before, so the loop does not wait behind a write.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from anyio.lowlevel import RunVar
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.config import get_settings
from app.db import release
from app.sqlite_file import sqlite_writer_busy

P = ParamSpec("P")
T = TypeVar("T")


def database_is_local() -> bool:
    """True when the database is an SQLite file of this machine (the default when none is set).

    From the setting as given: `sqlalchemy_url` resolves the default file's path, three
    system calls a page.
    """
    url = get_settings().database_url
    return url is None or url.startswith("sqlite")


async def run_db(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """FUNC's result, computed here in its turn (`Turns`) on SQLite, in a request thread
    otherwise, or when its turn comes while another connection holds this process's SQLite
    writer lock (app/sqlite_file.py): a write of FUNC would wait for it, and the loop must not."""
    if not database_is_local():
        return await run_in_threadpool(func, *args, **kwargs)
    await _turns().take()
    if sqlite_writer_busy():
        return await run_in_threadpool(func, *args, **kwargs)
    return func(*args, **kwargs)


class Turns:
    """Pages run on the loop one per turn of it, in the order they came.

    Why: a page run on the loop does not stop until it is done, so a class's requests arriving
    together would each run whole in the same turn, and `/healthz` and the next reads would wait
    for all of them (measured: /healthz 3.8 s behind 1,000 students). One page a turn lets the
    loop read its sockets between pages; first come, first served keeps a student who was
    answered from going ahead of one still waiting.
    """

    def __init__(self) -> None:
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._handing = False

    async def take(self) -> None:
        """Wait for this page's turn (the next turn of the loop when nobody waits)."""
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()
        self._waiting.append(turn)
        if not self._handing:
            self._handing = True
            loop.call_soon(self._hand_on)
        await turn

    def _hand_on(self) -> None:
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():  # a cancelled page (its client went away) gives up its turn
                turn.set_result(None)
                break
        if self._waiting:
            asyncio.get_running_loop().call_soon(self._hand_on)
        else:
            self._handing = False


_TURNS: RunVar[Turns] = RunVar("page_turns")


def _turns() -> Turns:
    try:
        return _TURNS.get()
    except LookupError:
        turns = Turns()
        _TURNS.set(turns)
        return turns


def db_page(endpoint: Callable[P, T]) -> Callable[P, Awaitable[T]]:
    """A synchronous route as an async one that runs where `run_db` says (same parameters).

    The request's session gives its connection back as the route returns (or rolls back if it
    failed): a write holds the writer lock until then, and another page's write waiting for it
    on the loop's own thread would wait for ever (5 s, then fail).
    """

    def released(*args: P.args, **kwargs: P.kwargs) -> T:
        sessions = [value for value in kwargs.values() if isinstance(value, Session)]
        try:
            result = endpoint(*args, **kwargs)
        except BaseException:
            for session in sessions:
                session.rollback()
            raise
        for session in sessions:
            release(session)
        return result

    @functools.wraps(endpoint)
    async def page(*args: P.args, **kwargs: P.kwargs) -> T:
        return await run_db(released, *args, **kwargs)

    return page
