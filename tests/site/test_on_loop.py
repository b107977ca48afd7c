"""A student's pages run on the event loop over SQLite and in a request thread over PostgreSQL,
and a page run on the loop hands SQLite's writer lock on before the loop runs anything else."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.orm import Session

import app.site.routes as site_routes
from app import db, sqlite_file
from app.web.on_loop import db_page
from tests.users.helpers import logged_in_client


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def test_the_lesson_page_runs_on_the_loop_over_sqlite_only(
    client_on_each_database: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = client_on_each_database
    sqlite = db.session_factory().kw["bind"].dialect.name == "sqlite"
    where: list[bool] = []
    opened = site_routes.open_lesson

    def watched(**kwargs: Any) -> Any:
        where.append(_on_loop())
        return opened(**kwargs)

    monkeypatch.setattr(site_routes, "open_lesson", watched)
    logged_in_client(client, "reader@example.org")
    lesson = client.get("/api/lessons").json()[0]
    assert client.get(lesson["url"]).status_code == 200  # the first visit writes the read
    assert client.get(lesson["url"]).status_code == 200
    assert where == [sqlite, sqlite]
    home = client.get("/").text
    assert ">Read<" in home, "the first visit's read was not kept"


def _writes(session: Session, fail: bool = False) -> str:
    session.execute(text("CREATE TABLE IF NOT EXISTS loop_probe (n INTEGER)"))
    session.execute(text("INSERT INTO loop_probe VALUES (1)"))
    if fail:
        raise ValueError("the page failed after its write")
    session.commit()
    return "done"


def test_a_page_on_the_loop_hands_the_writer_lock_on_as_it_returns(data_dir: Path) -> None:
    page = db_page(_writes)

    async def visit(fail: bool) -> tuple[bool, int]:
        session = db.session_factory()()
        try:
            with contextlib.suppress(ValueError):
                await page(session=session, fail=fail)
            # the request's session is still open here, as in FastAPI before its clean-up
            held = sqlite_file._sqlite_writer._lock.locked()
        finally:
            session.close()
        with db.session_factory()() as fresh:
            rows = fresh.scalar(text("SELECT count(*) FROM loop_probe")) or 0
        return held, rows

    assert asyncio.run(visit(fail=False)) == (False, 1)
    assert asyncio.run(visit(fail=True)) == (False, 1), "a failed page's write was kept"


def test_pages_on_the_loop_take_turns_in_order_and_let_other_work_in(data_dir: Path) -> None:
    # a class's five requests arrive together, then a health check: it must not wait for all
    ran: list[str] = []

    def endpoint(name: str) -> None:
        ran.append(name)

    page = db_page(endpoint)

    async def health() -> None:
        ran.append("health")

    async def arrive() -> None:
        pages = [asyncio.create_task(page(name=f"page{n}")) for n in range(5)]
        probe = asyncio.create_task(health())
        await asyncio.gather(*pages, probe)

    asyncio.run(arrive())
    assert [name for name in ran if name != "health"] == [f"page{n}" for n in range(5)]
    assert ran.index("health") <= 1, ran


def test_a_page_whose_turn_comes_while_the_writer_lock_is_held_waits_off_the_loop(
    data_dir: Path,
) -> None:
    # a grade being stored holds the writer lock: the page waits in a thread, the loop goes on
    where: list[str] = []
    page = db_page(_writes)
    held = threading.Event()

    def grade_store() -> None:
        with db.session_factory()() as other:
            other.execute(text("CREATE TABLE IF NOT EXISTS loop_probe (n INTEGER)"))
            held.set()
            time.sleep(0.5)
            other.commit()

    async def visit() -> None:
        store = threading.Thread(target=grade_store)
        store.start()
        await asyncio.to_thread(held.wait, 5)
        session = db.session_factory()()
        try:
            answer = asyncio.create_task(page(session=session))

            async def probe() -> None:
                await asyncio.sleep(0.1)
                where.append("loop free" if not answer.done() else "loop waited")

            await asyncio.gather(answer, probe())
            assert answer.result() == "done"
        finally:
            session.close()
        await asyncio.to_thread(store.join)

    asyncio.run(visit())
    assert where == ["loop free"]
