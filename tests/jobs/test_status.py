"""Live status across processes: the web's event stream hears about verdicts stored elsewhere."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient

from app.config import get_settings
from app.db import session_factory
from app.grading import leases
from app.grading.runtime import JobRuntime
from app.grading.service import get_grader
from app.jobs.status import RedisPublisher, RedisWatcher
from app.main import create_app
from app.users.models import Role
from tests.conftest import make_token
from tests.jobs.conftest import RedisSpace, add_submissions
from tests.jobs.helpers import GOOD

REPORT = {"verdict": "accepted", "score": 1.0, "message": "ok", "duration_ms": 5.0, "tests": []}


def test_a_published_status_wakes_the_watcher_at_once(
    scale_env: dict[str, str], redis_space: RedisSpace
) -> None:
    async def scenario() -> tuple[float, float]:
        watcher = RedisWatcher(redis_space.url, redis_space.prefix, fallback_seconds=30)
        await watcher.start()
        await asyncio.wait_for(watcher.connected.wait(), 10)
        publisher = RedisPublisher(redis.Redis.from_url(redis_space.url), redis_space.prefix)
        try:
            async with watcher.watch(7) as wait, watcher.watch(8) as wait_other:
                started = time.monotonic()
                asyncio.get_running_loop().call_later(0.2, publisher.publish, 7, "done")
                await wait()
                woke = time.monotonic() - started
                watcher.fallback_seconds = 0.5
                started = time.monotonic()
                await wait_other()  # nothing was published for 8: only the fallback wakes it
                return woke, time.monotonic() - started
        finally:
            await watcher.stop()

    woke, fallback = asyncio.run(scenario())
    assert woke < 10  # far below the 30 s fallback: the message did it
    assert fallback >= 0.45


def _events(client: TestClient, sid: int, headers: dict[str, str]) -> list[dict[str, Any]]:
    seen = []
    with client.stream("GET", f"/api/submissions/{sid}/events", headers=headers) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: "):
                seen.append(json.loads(line[len("data: ") :]))
    return seen


@pytest.fixture
def serve_only(scale_env: dict[str, str]) -> Iterator[TestClient]:
    """The web app in the scale-out mode: it queues and streams, it does not grade."""
    with TestClient(create_app()) as client:
        assert client.app.state.jobs.grade is False  # type: ignore[attr-defined]
        yield client


def test_the_stream_ends_with_the_verdict_of_a_worker_elsewhere(
    serve_only: TestClient, redis_space: RedisSpace
) -> None:
    get_grader(warm=False)
    serve_only.app.state.status_watcher.fallback_seconds = 30  # type: ignore[attr-defined]
    headers = {"Authorization": f"Bearer {make_token('sse@example.org', Role.student)}"}
    answer = serve_only.post(
        "/api/submissions",
        json={"exercise": "position-embedding-gather", "code": GOOD},
        headers=headers,
    )
    sid = answer.json()["id"]
    worker = JobRuntime(get_settings(), grade=True, concurrency=1, role="worker")
    threading.Timer(1.0, worker.start).start()  # the stream is open before grading starts
    started = time.monotonic()
    try:
        seen = _events(serve_only, sid, headers)
    finally:
        worker.stop(30)
    assert [e["status"] for e in seen][-1] == "done"
    assert seen[-1]["verdict"] == "accepted"
    assert [e["status"] for e in seen].count("done") == 1
    assert time.monotonic() - started < 120


def test_a_missed_message_costs_a_database_recheck_not_a_hung_stream(
    serve_only: TestClient,
) -> None:
    headers = {"Authorization": f"Bearer {make_token('quiet@example.org', Role.instructor)}"}
    (sid,) = add_submissions([GOOD])
    with session_factory()() as session:
        held = leases.claim(session=session, submission_id=sid, lease_seconds=30)
        assert held is not None

    def finish_silently() -> None:  # stored without any pub/sub message
        with session_factory()() as session:
            assert held is not None
            leases.finish(session=session, held=held, report=REPORT)

    threading.Timer(0.5, finish_silently).start()
    started = time.monotonic()
    seen = _events(serve_only, sid, headers)
    assert time.monotonic() - started < 15
    assert [e["status"] for e in seen] in (["running", "done"], ["done"])


def test_local_watcher_wakes_a_stream_from_a_grading_thread() -> None:
    """Embedded mode: a report stored by a worker thread wakes its stream; without the publish
    the stream would sleep for its whole (here hour-long) fallback interval."""
    import asyncio
    import threading

    from app.jobs.status import LocalWatcher

    async def scenario() -> bool:
        watcher = LocalWatcher(fallback_seconds=3600.0)
        await watcher.start()
        async with watcher.watch(7) as wait:
            threading.Timer(0.05, watcher.publish, args=(7, "done")).start()
            await asyncio.wait_for(wait(), timeout=60)  # raises if the publish was lost
            return True

    assert asyncio.run(scenario())


def _gauge(client: TestClient, name: str) -> float:
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} is not in /metrics")


def test_open_streams_hold_no_thread_and_no_connection(serve_only: TestClient) -> None:
    """Issue 23: many students watch their submissions at once; a waiting stream costs a socket
    and a timer, not one of the few request threads or database connections."""
    serve_only.app.state.status_watcher.fallback_seconds = 30  # type: ignore[attr-defined]
    headers = {"Authorization": f"Bearer {make_token('many@example.org', Role.instructor)}"}
    ids = add_submissions([GOOD] * 12)
    opened = threading.Semaphore(0)
    verdicts: dict[int, str] = {}

    def follow(sid: int) -> None:
        url = f"/api/submissions/{sid}/events"
        with serve_only.stream("GET", url, headers=headers) as response:
            for line in response.iter_lines():
                if line.startswith("data: "):
                    event = json.loads(line[len("data: ") :])
                    if event["status"] == "queued":
                        opened.release()
                    if event["status"] == "done":
                        verdicts[sid] = event["verdict"]

    streams = [threading.Thread(target=follow, args=(sid,)) for sid in ids]
    for thread in streams:
        thread.start()
    for _ in ids:
        assert opened.acquire(timeout=60)
    assert _gauge(serve_only, "course_web_threads_busy") == 0
    assert _gauge(serve_only, "course_web_db_connections_in_use") == 0
    assert _gauge(serve_only, "course_web_requests_active") == 0
    worker = JobRuntime(get_settings(), grade=True, concurrency=2, role="worker")
    get_grader(warm=False)
    worker.start()
    try:
        for thread in streams:
            thread.join(180)
    finally:
        worker.stop(30)
    assert verdicts == {sid: "accepted" for sid in ids}
