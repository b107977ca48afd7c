"""Fixtures on the machine's real PostgreSQL and Redis: a fresh database and key prefix per test.

Outside CI a missing server skips these tests; with CI set they fail, since CI provides both.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import redis

from app.config import get_settings
from app.db import dispose_engines, get_engine, session_factory
from app.grading.service import shutdown_grader
from app.migrate import upgrade_head
from app.submissions.models import Submission
from app.users.models import Role
from app.users.service import create_user
from tests.conftest import shipped_content
from tests.jobs.helpers import wait_until

PG_ADMIN = os.environ.get("TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_BASE = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/5")


def _unavailable(what: str, exc: Exception) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is required in CI: {exc}")
    pytest.skip(f"{what} not reachable: {exc}")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A throwaway database `course_scale_<random>`, dropped afterwards."""
    name = f"course_scale_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        _unavailable("PostgreSQL", exc)
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0]
    yield f"{base}/{name}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class RedisSpace:
    """A key prefix of our own on the test Redis database; every key under it is removed after."""

    url: str
    prefix: str
    client: redis.Redis

    def all_keys(self) -> list[str]:
        """Every key of this test."""
        return sorted(k.decode() for k in self.client.scan_iter(match=f"{self.prefix}:*"))


@pytest.fixture
def redis_space() -> Iterator[RedisSpace]:
    """A unique prefix; its keys are deleted at the end."""
    client = redis.Redis.from_url(REDIS_BASE, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        _unavailable("Redis", exc)
    space = RedisSpace(url=REDIS_BASE, prefix=f"test-{uuid.uuid4().hex[:10]}", client=client)
    yield space
    for key in list(client.scan_iter(match=f"{space.prefix}:*")):
        client.delete(key)
    client.close()


def _clear_caches() -> None:
    get_settings.cache_clear()
    get_engine.cache_clear()


@pytest.fixture
def scale_env(
    pg_url: str, redis_space: RedisSpace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """This process configured for the scale-out mode on a migrated PostgreSQL database."""
    env = {
        "APP_ENV": "test",
        "APP_DATA_DIR": str(tmp_path / "var"),
        "DATABASE_URL": pg_url,
        "REDIS_URL": redis_space.url,
        "REDIS_PREFIX": redis_space.prefix,
        "POOL_SIZES": '{"numpy": 1, "torch": 0, "jax": 0}',
        "POOL_WARM_ON_START": "false",
        "GRADING_WORKERS": "2",
        "LEASE_SECONDS": "4",
        "REAPER_INTERVAL_SECONDS": "0.5",
        "CONTENT_DIR": str(shipped_content()),  # the repository's, its exam windows pinned
    }
    for var in ("SECRET_KEY", "SERVE_GRADES", "LOG_FORMAT"):
        monkeypatch.delenv(var, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    _clear_caches()
    upgrade_head()
    yield env
    shutdown_grader()
    dispose_engines()
    _clear_caches()


def add_submissions(
    codes: list[str], exercise: str = "position-embedding-gather", framework: str = "numpy"
) -> list[int]:
    """Queued rows written the way the web app writes them (row first, job later)."""
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email="queue@example.org", password="correct horse", role=Role.student
        )
        rows = [
            Submission(
                user_id=user.id,
                exercise_slug=exercise,
                framework=framework,
                mode="submit",
                code=code,
                status="queued",
            )
            for code in codes
        ]
        session.add_all(rows)
        session.commit()
        return [row.id for row in rows]


def rows(ids: list[int]) -> dict[int, Submission]:
    """Fresh copies of these rows."""
    with session_factory()() as session:
        found = session.query(Submission).filter(Submission.id.in_(ids)).all()
        return {row.id: row for row in found}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# Its port, its processes (the running one last), and how to start it again on that port.
PrivateRedis = tuple[int, list[subprocess.Popen[bytes]], Callable[[int], None]]


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A redis-server of our own (no persistence) that a test may kill and start again."""
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is required in CI")
        pytest.skip("redis-server is not installed")
    procs: list[subprocess.Popen[bytes]] = []
    log = tmp_path / "redis.log"

    def start(port: int) -> bool:
        """Start on `port`; False if redis exited at once (the port was taken meanwhile)."""
        args = ["--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
        with log.open("ab") as out:
            proc = subprocess.Popen(
                [binary, *args, "--bind", "127.0.0.1"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        procs.append(proc)
        try:
            wait_until(lambda: proc.poll() is not None or _answers(port), 15, "redis-server")
        except AssertionError as exc:
            raise AssertionError(f"{exc} on port {port}; it said:\n{log.read_text()[-2000:]}")
        return proc.poll() is None

    def restart(port: int) -> None:
        assert start(port), f"redis-server did not start again:\n{log.read_text()[-2000:]}"

    for _attempt in range(3):  # another process may take a free port before redis binds it
        port = _free_port()
        if start(port):
            break
    else:
        pytest.fail(f"redis-server would not start:\n{log.read_text()[-2000:]}")
    yield port, procs, restart
    for proc in procs:
        proc.kill()
        proc.wait()


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False
