"""/healthz names each dependency's state and says 503 while the database, queue or disk is away.

Real parts: the machine's PostgreSQL and Redis reached through a relay the test cuts
(tests/faults.py); the shared servers keep running.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.db import get_engine
from app.main import create_app
from app.migrate import upgrade_head
from app.site import health
from app.users.models import Role
from tests.conftest import make_token
from tests.faults import Relay, relay_to
from tests.postgres import throwaway_database

SUBMIT = {"exercise": "position-embedding-gather", "code": "x = 1"}


def _wait_for(client: TestClient, want: int, seconds: float = 10.0) -> dict[str, Any]:
    """The first /healthz answer with that status code (the probe is cached for a second)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = client.get("/healthz")
        if answer.status_code == want or time.monotonic() > deadline:
            assert answer.status_code == want, answer.text
            body: dict[str, Any] = answer.json()
            return body
        time.sleep(0.2)


def test_all_well_names_every_dependency(client: TestClient) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ok",
        "grader": "starting",
        "database": "ok",
        "queue": "embedded",
        "disk": "ok",
    }


def test_the_probe_is_cached_for_a_second(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[float] = []
    real = health.probe_database

    def counted() -> str:
        calls.append(time.monotonic())
        return real()

    monkeypatch.setattr(health, "probe_database", counted)
    health.forget()
    for _ in range(20):
        assert client.get("/healthz").status_code == 200
    assert 1 <= len(calls) <= 2  # 20 polls within about a second: one or two probes


@pytest.fixture
def pg_relay(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[Relay]:
    with throwaway_database(monkeypatch, data_dir) as url, relay_to(5432) as relay:
        name = url.rsplit("/", 1)[1]
        monkeypatch.setenv("DATABASE_URL", f"postgresql://postgres@127.0.0.1:{relay.port}/{name}")
        get_settings.cache_clear()
        get_engine.cache_clear()
        upgrade_head()
        yield relay


def test_a_database_away_is_named_and_answers_503(pg_relay: Relay) -> None:
    with TestClient(create_app()) as client:
        assert _wait_for(client, 200)["database"] == "ok"
        pg_relay.cut()
        started = time.monotonic()
        body = _wait_for(client, 503)
        assert time.monotonic() - started < 5
        assert body["status"] == "unavailable"
        assert body["database"].startswith("unavailable: the database cannot be reached")
        assert body["queue"] == "embedded" and body["disk"] == "ok" and "grader" in body
        pg_relay.restore()
        assert _wait_for(client, 200)["database"] == "ok"


@pytest.fixture
def redis_relay(pg_relay: Relay, monkeypatch: pytest.MonkeyPatch) -> Iterator[Relay]:
    """Scale-out mode: Redis (the machine's, database 5, a prefix of our own) through a relay."""
    with relay_to(6379) as relay:
        monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{relay.port}/5")
        monkeypatch.setenv("REDIS_PREFIX", f"test-{uuid.uuid4().hex[:10]}")
        get_settings.cache_clear()
        yield relay


def test_a_queue_away_is_named_and_answers_503(redis_relay: Relay) -> None:
    headers = {"Authorization": f"Bearer {make_token('q@example.org', Role.student)}"}
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        body = _wait_for(client, 200)
        assert body["queue"] == "ok"
        assert body["grader"].startswith("unavailable: no grading worker")  # none started here
        assert body["status"] == "degraded"  # pages work; grading waits for a worker
        redis_relay.cut()
        body = _wait_for(client, 503)
        assert body["status"] == "unavailable" and body["database"] == "ok"
        assert body["queue"].startswith("unavailable: the queue (Redis) cannot be reached")
        # Nothing is lost meanwhile: a submission is stored as queued (the reaper sends it once
        # Redis is back), and pages answer.
        sent = client.post("/api/submissions", json=SUBMIT, headers=headers)
        assert sent.status_code == 202, sent.text
        seen = client.get(f"/api/submissions/{sent.json()['id']}", headers=headers)
        assert seen.status_code == 200 and seen.json()["status"] == "queued"
        for path in ("/", "/lessons/why-position", "/exercises/position-embedding-gather"):
            assert client.get(path, headers=headers).status_code == 200, path
        redis_relay.restore()
        assert _wait_for(client, 200)["queue"] == "ok"


def test_a_data_directory_not_made_yet_is_judged_by_its_disk(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("APP_DATA_DIR", str(tmp_path / "not" / "yet"))
    get_settings.cache_clear()
    assert health.probe_disk() == "ok"
