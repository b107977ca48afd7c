"""Bad configuration at start gets one sentence naming the fix, within seconds, never a traceback.

Real parts: the commands run as subprocesses; the database that never answers is a port where
nothing listens, and the one that comes up late is the machine's PostgreSQL behind a relay
(tests/faults.py) that the test opens midway.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.config import ROOT
from tests.conftest import run_cli
from tests.faults import relay_to
from tests.postgres import throwaway_database

COMMANDS = [("serve", "--port", "0"), ("migrate",), ("worker",)]


def _error_line(stderr: str) -> str:
    """The one `error:` line, checked to be the last and the only one, with no traceback."""
    assert "Traceback" not in stderr, stderr[-2000:]
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], stderr[-2000:]
    return errors[0]


def _no_listener() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again: connections to it are refused


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_production_without_a_secret_names_the_fix(data_dir: Path, command: tuple[str]) -> None:
    result = run_cli(*command, env={"APP_ENV": "production", "APP_DATA_DIR": str(data_dir)})
    assert result.returncode == 1
    line = _error_line(result.stderr)
    assert "SECRET_KEY" in line and "set SECRET_KEY to a long random value" in line


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_database_that_never_answers_is_given_up_on_with_the_fix(
    data_dir: Path, command: tuple[str]
) -> None:
    port = _no_listener()
    env = {
        "APP_DATA_DIR": str(data_dir),
        "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{port}/course",
        "DATABASE_WAIT_SECONDS": "2",
        "REDIS_URL": "redis://127.0.0.1:6379/5",
    }
    started = time.monotonic()
    result = run_cli(*command, env=env, timeout=60)
    waited = time.monotonic() - started
    assert result.returncode == 1
    line = _error_line(result.stderr)
    assert f"the database at 127.0.0.1:{port}/course did not answer within 2 s" in line
    assert "Connection refused" in line and "DATABASE_URL" in line
    assert waited >= 2  # it waited, boundedly (the run's own time-out caps the rest)


def test_a_database_that_comes_up_during_the_wait_is_used(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with throwaway_database(monkeypatch, data_dir) as url, relay_to(5432) as relay:
        relay.cut()  # PostgreSQL is still starting
        name = url.rsplit("/", 1)[1]
        env = {
            **os.environ,
            "APP_DATA_DIR": str(data_dir),
            "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{relay.port}/{name}",
            "DATABASE_WAIT_SECONDS": "60",
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "migrate"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stderr is not None and proc.stdout is not None
        said = []
        for line in proc.stderr:  # until it says it waits; then PostgreSQL is up
            said.append(line)
            if "waiting up to 60 s for the database" in line:
                break
        relay.restore()
        out, rest = proc.communicate(timeout=120)
        stderr = "".join(said) + rest
        assert proc.returncode == 0, stderr[-2000:]
        assert "waiting up to 60 s for the database" in stderr
        assert "database is up to date" in out
