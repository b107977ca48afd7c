"""A class arriving at once: requests wait in line holding nothing, and a full server says 503."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from app.config import get_settings
from app.db import get_engine, session_factory
from app.main import create_app
from app.users.models import Role
from app.users.service import create_user
from app.users.sessions import start_web_session
from app.web.capacity import Admission, AdmissionMiddleware


def _scope(path: str = "/", accept: str = "text/html") -> Scope:
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "headers": [(b"accept", accept.encode())],
        "query_string": b"",
    }


class Held:
    """An ASGI app whose responses wait until the test lets them go."""

    def __init__(self, stream: bool = False) -> None:
        self.go = asyncio.Event()
        self.started = 0
        self.stream = stream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.started += 1
        if not self.stream:
            await self.go.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        if self.stream:  # headers out, then a long body: like an event stream
            await self.go.wait()
        await send({"type": "http.response.body", "body": b"ok"})


async def _call(app: Any, scope: Scope) -> tuple[int, dict[str, str], bytes]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start.get("headers", [])}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], headers, body


def _middleware(inner: Any, slots: int = 1, wait: float = 0.05) -> AdmissionMiddleware:
    return AdmissionMiddleware(
        inner, admission=Admission(slots), wait_seconds=wait, max_waiting=10, retry_after=7
    )


def test_a_request_that_cannot_be_served_in_time_gets_503_with_retry_after() -> None:
    async def scenario() -> None:
        inner = Held()
        app = _middleware(inner)
        first = asyncio.create_task(_call(app, _scope()))
        await asyncio.sleep(0.01)
        status, headers, body = await _call(app, _scope())
        assert status == 503
        assert headers["retry-after"] == "7"
        assert b"busy" in body and b"Nothing you wrote is lost" in body
        status, headers, body = await _call(app, _scope("/api/lessons", "application/json"))
        assert status == 503 and headers["retry-after"] == "7"
        assert "Try again in 7 seconds" in json.loads(body)["detail"]
        inner.go.set()
        assert (await first)[0] == 200
        assert (await _call(app, _scope()))[0] == 200  # the slot came back
        assert app.admission.shed == 2 and app.admission.busy == 0

    asyncio.run(scenario())


def test_waiting_requests_are_served_first_come_first_served() -> None:
    async def scenario() -> list[int]:
        order: list[int] = []
        inner = Held()
        app = _middleware(inner, wait=5.0)
        first = asyncio.create_task(_call(app, _scope()))
        await asyncio.sleep(0.01)

        async def numbered(n: int) -> None:
            await _call(app, _scope())
            order.append(n)

        waiters = []
        for n in range(5):
            waiters.append(asyncio.create_task(numbered(n)))
            await asyncio.sleep(0.005)
        assert app.admission.waiting == 5
        inner.go.set()
        await asyncio.gather(first, *waiters)
        return order

    assert asyncio.run(scenario()) == [0, 1, 2, 3, 4]


def test_a_client_that_leaves_while_waiting_does_not_keep_a_slot() -> None:
    async def scenario() -> None:
        inner = Held()
        app = _middleware(inner, wait=5.0)
        first = asyncio.create_task(_call(app, _scope()))
        await asyncio.sleep(0.01)
        leaver = asyncio.create_task(_call(app, _scope()))
        await asyncio.sleep(0.01)
        leaver.cancel()
        with pytest.raises(asyncio.CancelledError):
            await leaver
        inner.go.set()
        await first
        assert app.admission.busy == 0 and app.admission.waiting == 0

    asyncio.run(scenario())


def test_a_streaming_response_gives_its_slot_back_once_its_headers_are_out() -> None:
    async def scenario() -> None:
        inner = Held(stream=True)
        app = _middleware(inner)
        stream = asyncio.create_task(_call(app, _scope()))
        await asyncio.sleep(0.02)
        other = Held()
        other.go.set()
        app.app = other  # the next request reaches an app that answers at once
        assert (await _call(app, _scope()))[0] == 200
        inner.go.set()
        assert (await stream)[0] == 200

    asyncio.run(scenario())


def test_health_checks_never_wait_in_line() -> None:
    async def scenario() -> None:
        inner = Held()
        app = _middleware(inner)
        first = asyncio.create_task(_call(app, _scope()))
        await asyncio.sleep(0.01)
        health = asyncio.create_task(_call(app, _scope("/healthz")))
        await asyncio.sleep(0.1)
        assert inner.started == 2 and not health.done()  # reached the app without a slot
        inner.go.set()
        await asyncio.gather(first, health)

    asyncio.run(scenario())


def _cookie() -> str:
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email="crowd@example.org", password="correct horse", role=Role.student
        )
        return start_web_session(session=session, user=user, days=1)


@pytest.fixture
def tight(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """The real app with one request thread and one database connection."""
    monkeypatch.setenv("WEB_THREADS", "1")
    monkeypatch.setenv("WEB_DB_CONNECTIONS", "1")
    monkeypatch.setenv("WEB_DB_WAIT_SECONDS", "3")
    monkeypatch.setenv("LTI_OUTBOX_WORKER", "false")
    get_settings.cache_clear()
    get_engine.cache_clear()
    with TestClient(create_app()) as client:
        yield client


def test_a_request_holds_no_connection_while_it_waits_for_a_thread(tight: TestClient) -> None:
    """Before issue 23 a request kept the connection of its login check while it waited for a
    thread to run its page; with as many such requests as connections, every thread waited for
    a connection that only a waiting request could give back, and pages failed with 500."""
    tight.cookies.set("session", _cookie())
    statuses: list[int] = []
    lock = threading.Lock()

    def load() -> None:
        answer = tight.get("/")
        with lock:
            statuses.append(answer.status_code)

    threads = [threading.Thread(target=load) for _ in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert statuses == [200] * 24


def test_no_database_connection_in_time_is_a_503_page_not_a_500(
    tight: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    tight.cookies.set("session", _cookie())
    monkeypatch.setenv("WEB_DB_WAIT_SECONDS", "0.2")
    get_settings.cache_clear()
    get_engine.cache_clear()  # the app now draws from a new pool of one, which we take
    with get_engine().connect():
        page = tight.get("/", headers={"accept": "text/html"})
        api = tight.get("/api/submissions")
    assert page.status_code == 503 and page.headers["retry-after"] == "5"
    assert "busy" in page.text
    assert api.status_code == 503 and "Try again" in api.json()["detail"]
    assert tight.get("/").status_code == 200


def test_a_busy_page_carries_the_security_headers(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 503 comes from the line in front of the app, still inside the security headers."""
    monkeypatch.setenv("WEB_SLOTS", "1")
    monkeypatch.setenv("WEB_QUEUE_MAX", "0")
    get_settings.cache_clear()
    app = create_app()
    app.state.admission.busy = 1  # the one slot is taken and nobody may wait
    with TestClient(app) as client:
        answer = client.get("/lessons/why-position", headers={"accept": "text/html"})
        assert client.get("/healthz").status_code == 200  # health skips the line
    assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
    assert "script-src" in answer.headers["content-security-policy"]
    assert answer.headers["x-content-type-options"] == "nosniff"


def test_metrics_count_the_requests_let_in_and_the_ones_turned_away(tight: TestClient) -> None:
    """With the access log off by default, /metrics is where an operator counts requests."""

    def counter(name: str) -> float:
        for line in tight.get("/metrics").text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        raise AssertionError(f"{name} is not in /metrics")

    before = counter("course_web_requests_admitted_total")
    for _ in range(3):
        assert tight.get("/api/lessons").status_code == 200
    # the three pages and the first scrape itself were let in
    assert counter("course_web_requests_admitted_total") == before + 4
    assert counter("course_web_requests_shed_total") == 0
