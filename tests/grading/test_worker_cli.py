"""`python -m app worker`: clear refusals, a health check, and a graceful SIGTERM."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from app.cli import build_parser
from app.config import ROOT
from app.jobs.logs import JsonFormatter
from tests.conftest import run_cli
from tests.jobs.conftest import RedisSpace
from tests.jobs.helpers import wait_until


def test_the_worker_command_takes_a_concurrency() -> None:
    args = build_parser().parse_args(["worker", "--concurrency", "3"])
    assert (args.command, args.concurrency, args.health) == ("worker", 3, False)


def test_the_worker_needs_redis(data_dir: Path) -> None:
    result = run_cli("worker")  # the fixture removed REDIS_URL from the environment
    assert result.returncode == 1
    assert "REDIS_URL" in result.stderr and "serve" in result.stderr


def test_the_worker_says_when_redis_is_unreachable(data_dir: Path) -> None:
    result = run_cli("worker", env={"REDIS_URL": "redis://127.0.0.1:1/0"}, timeout=60)
    assert result.returncode == 1
    assert "cannot reach Redis" in result.stderr


def test_the_worker_refuses_an_unmigrated_database(
    pg_url: str, redis_space: RedisSpace, tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": pg_url,
        "REDIS_URL": redis_space.url,
        "REDIS_PREFIX": redis_space.prefix,
        "APP_DATA_DIR": str(tmp_path),
    }
    result = run_cli("worker", env=env, timeout=60)
    assert result.returncode == 1
    assert "python -m app migrate" in result.stderr


def test_sigterm_drains_and_the_health_check_follows(
    scale_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**os.environ, **scale_env, "LOG_FORMAT": "json"}
    log_path = tmp_path / "worker.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "worker", "--concurrency", "1"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until(
            lambda: run_cli("worker", "--health", env=scale_env).returncode == 0,
            120,
            "the worker to announce itself",
            step=1.0,
        )
        proc.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert proc.wait(timeout=90) == 0
        assert time.monotonic() - started < 90
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    after = run_cli("worker", "--health", env=scale_env)
    assert after.returncode == 1 and "no worker" in after.stderr
    text = log_path.read_text()
    assert '"event": "ready"' in text and '"event": "stopped"' in text


def test_json_logs_carry_the_submission_id() -> None:
    record = logging.makeLogRecord(
        {
            "name": "app.grading.runner",
            "levelno": logging.INFO,
            "levelname": "INFO",
            "msg": "submission %s: stored %s",
            "args": (42, "accepted"),
            "submission_id": 42,
            "verdict": "accepted",
        }
    )
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "submission 42: stored accepted"
    assert (line["submission_id"], line["verdict"], line["level"]) == (42, "accepted", "info")
    assert {"ts", "logger", "pid"} <= line.keys()
