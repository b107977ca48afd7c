"""A dependency that is away answers 503 with Retry-After and says nothing was lost, never 500.

Real parts: the app talks to the machine's PostgreSQL and Redis through a relay the test cuts
(tests/faults.py), so the shared servers keep running for everyone else.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

import app.db
from app.config import get_settings
from app.db import get_engine
from app.main import create_app
from app.migrate import upgrade_head
from app.users.models import Role
from tests.conftest import fresh_data_dir, make_token
from tests.faults import Relay, relay_to
from tests.postgres import PG_ADMIN, throwaway_database

NOTHING_LOST = "Nothing already saved is lost"
HTML = {"accept": "text/html"}
LESSON = "/lessons/why-position"


def _point_at(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("DATABASE_URL", url)
    get_settings.cache_clear()
    get_engine.cache_clear()


@pytest.fixture
def pg_relay(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[tuple[Relay, str]]:
    """The app on a throwaway PostgreSQL database reached through a relay; (relay, db name)."""
    with throwaway_database(monkeypatch, data_dir) as url, relay_to(5432) as relay:
        name = url.rsplit("/", 1)[1]
        _point_at(monkeypatch, f"postgresql://postgres@127.0.0.1:{relay.port}/{name}")
        upgrade_head()
        yield relay, name


def _assert_outage(response: Any, *, html: bool) -> None:
    assert response.status_code == 503, response.text[:500]
    assert int(response.headers["retry-after"]) > 0
    if html:
        assert response.headers["content-type"].startswith("text/html")
        assert NOTHING_LOST in response.text
    else:
        detail = response.json()["detail"]
        assert NOTHING_LOST in detail and "database" in detail


def test_a_database_that_refuses_connections_answers_503_then_recovers(
    pg_relay: tuple[Relay, str],
) -> None:
    relay, _ = pg_relay
    headers = {"Authorization": f"Bearer {make_token('s@example.org', Role.student)}"}
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        assert client.get("/api/submissions", headers=headers).status_code == 200
        relay.cut()
        app.db.dispose_engines()  # no pooled connection left: every request must connect
        _assert_outage(client.get("/api/submissions", headers=headers), html=False)
        _assert_outage(
            client.post(
                "/api/submissions",
                json={"exercise": "position-embedding-gather", "code": "x = 1"},
                headers=headers,
            ),
            html=False,
        )
        _assert_outage(
            client.get("/exercises/position-embedding-gather/history", headers={**headers, **HTML}),
            html=True,
        )
        relay.restore()
        assert client.get("/api/submissions", headers=headers).status_code == 200


def test_connections_killed_mid_use_answer_503_not_500(
    pg_relay: tuple[Relay, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, name = pg_relay
    monkeypatch.setattr(app.db, "IDLE_PING_SECONDS", 3600.0)  # use the dead connection at once
    headers = {"Authorization": f"Bearer {make_token('k@example.org', Role.student)}"}
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        assert client.get("/api/submissions", headers=headers).status_code == 200
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            ).fetchone()
        assert killed is not None and killed[0] >= 1
        _assert_outage(client.get("/api/submissions", headers=headers), html=False)
        # The pool threw the dead connections away: the next request works by itself.
        assert client.get("/api/submissions", headers=headers).status_code == 200


SUBMIT = {"exercise": "position-embedding-gather", "code": "x = 1"}


@contextmanager
def tiny_disk(folder: Path, megabytes: int) -> Iterator[Path]:
    """A small tmpfs at FOLDER (root only): a disk that can really be filled."""
    folder.mkdir(parents=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(folder)], check=True
    )
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> Path:
    """Write until the disk is full; the filler file, to delete for space again."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    block = b"\0" * 65536
    try:
        while True:
            os.write(fd, block)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_answers_503_and_recovers_when_space_is_freed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """And the failed stores do not count against the student's rate limit (3 a minute here)."""
    monkeypatch.setenv("SUBMISSIONS_PER_MINUTE", "3")
    with tiny_disk(tmp_path / "disk", 16) as disk, fresh_data_dir(disk / "var", monkeypatch):
        headers = {"Authorization": f"Bearer {make_token('d@example.org', Role.student)}"}
        with TestClient(create_app(), raise_server_exceptions=False) as client:
            assert client.post("/api/submissions", json=SUBMIT, headers=headers).status_code == 202
            filler = _fill(disk)
            for _ in range(3):
                response = client.post("/api/submissions", json=SUBMIT, headers=headers)
                assert response.status_code == 503, response.text[:300]
                assert response.headers["retry-after"]
                detail = response.json()["detail"]
                assert NOTHING_LOST in detail and "disk is full" in detail
            health = client.get("/healthz")
            assert health.status_code == 503 and health.json()["disk"].startswith("unavailable")
            page = client.get(LESSON, headers={**headers, **HTML})  # a first view is a write
            assert page.status_code == 503 and page.headers["retry-after"]
            assert NOTHING_LOST in page.text and "disk is full" in page.text
            filler.unlink()
            after = [
                client.post("/api/submissions", json=SUBMIT, headers=headers) for _ in range(3)
            ]
        assert [a.status_code for a in after] == [202, 202, 429]  # 1 before + 2 after = 3
        check = sqlite3.connect(disk / "var" / "app.db")
        try:
            assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert check.execute("SELECT count(*) FROM submissions").fetchone() == (3,)
        finally:
            check.close()
