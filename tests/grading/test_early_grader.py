"""A restart's grader: started before the app loads, the class's last exercise first (issue 54)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from app.cli import build_parser
from app.config import ROOT, get_settings
from app.grading import service
from app.grading.service import DEMAND_FILE, pool_settings
from tests.pyrun import last_json


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("argv", "env", "early"),
    [
        (["serve"], {}, True),
        (["serve", "--reload"], {}, False),  # the reloading parent never grades
        (["serve", "--workers", "2"], {"REDIS_URL": "redis://127.0.0.1:6379/5"}, False),
        (["serve"], {"REDIS_URL": "redis://127.0.0.1:6379/5"}, False),  # workers grade
        (["serve"], {"POOL_WARM_ON_START": "false"}, False),  # started on the first job
    ],
    ids=["embedded", "reload", "web-processes", "scale-out", "warm-off"],
)
def test_serve_starts_its_grader_ahead_only_where_it_grades_at_start(
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    env: dict[str, str],
    early: bool,
) -> None:
    monkeypatch.setenv("POOL_WARM_ON_START", "true")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    started: list[bool] = []
    monkeypatch.setattr(service, "start_grader_early", lambda health: started.append(True))
    args = build_parser().parse_args([*argv, "--port", str(_free_port())])
    args.ahead(args)
    assert started == ([True] if early else [])


def test_a_busy_port_starts_no_grader(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POOL_WARM_ON_START", "true")
    get_settings.cache_clear()
    started: list[bool] = []
    monkeypatch.setattr(service, "start_grader_early", lambda health: started.append(True))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        args = build_parser().parse_args(["serve", "--port", str(taken.getsockname()[1])])
        args.ahead(args)  # `serve` then says the port is taken; no sandboxes for nothing
    assert started == []


_AT_THE_GRADERS_START = """
import json, sys
import app.grading.service as service

def early(health):
    later = ("fastapi", "app.jobkinds", "app.wiring", "app.main")
    print(json.dumps(sorted(m for m in later if m in sys.modules)))
    raise SystemExit(0)

service.start_grader_early = early
from app.cli import main
main(["serve", "--port", sys.argv[1]])
"""


def test_serve_starts_its_grader_before_loading_the_app_and_its_hooks(data_dir: Path) -> None:
    """The grader's start waits only for `serve`'s checks, not for the web framework's or the
    upper floors' imports (a second of one core on a slow machine); every command is still
    wired (test_wiring)."""
    env = {**os.environ, "APP_DATA_DIR": str(data_dir), "POOL_WARM_ON_START": "true"}
    port = str(_free_port())
    assert last_json(_AT_THE_GRADERS_START, env=env, cwd=data_dir, args=(port,)) == []


_AT_THE_PROBES_START = """
import json, sys
import uvicorn
from graders.host import health

def begin(self):
    later = ("graders.engine", "numpy", "app.grading.service", "app.main")
    print(json.dumps(sorted(m for m in later if m in sys.modules)))
    raise SystemExit(0)

health.Health.begin = begin
uvicorn.run = lambda **options: print(json.dumps("the app was served first"))
from app.cli import main
main(["serve", "--port", sys.argv[1]])
"""


def test_serve_begins_its_sandbox_probe_before_loading_the_grader(data_dir: Path) -> None:
    """The probe's sandbox starts while the grader's modules load (0.1 s of a restart)."""
    env = {**os.environ, "APP_DATA_DIR": str(data_dir), "POOL_WARM_ON_START": "true"}
    port = str(_free_port())
    assert last_json(_AT_THE_PROBES_START, env=env, cwd=data_dir, args=(port,)) == []


def test_a_grading_pool_remembers_in_the_data_dir_and_a_one_off_grader_does_not(
    data_dir: Path,
) -> None:
    assert pool_settings(warm=True).demand_file == str(data_dir / DEMAND_FILE)
    assert pool_settings(warm=False).demand_file is None  # `grade`, `prepare`: not a class


def _first_jax_ready(port: int, proc: subprocess.Popen[bytes], limit_s: float) -> str:
    """The first JAX key with a ready server on /metrics (polled as the server starts)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the server stopped"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as resp:
                text = resp.read().decode()
        except OSError:
            time.sleep(0.2)
            continue
        ready = re.findall(r'course_pool_ready\{framework="(jax[\w:-]*)"\} ([1-9])', text)
        if ready:
            return ",".join(sorted(key for key, _ in ready))
        time.sleep(0.1)
    raise AssertionError(f"no JAX server was ready within {limit_s} s")


def test_a_restarted_server_starts_the_exercise_the_class_was_on_first(data_dir: Path) -> None:
    # The class last asked for `rope-rotate` (written by the pool before the restart): its
    # server is the first JAX one up, ahead of the plain one and the alphabetical first.
    (data_dir / DEMAND_FILE).write_text(json.dumps({"jax:rope-rotate": time.time() - 600}))
    port = _free_port()
    env = {
        **os.environ,
        "APP_DATA_DIR": str(data_dir),
        "POOL_WARM_ON_START": "true",
        "POOL_SIZES": '{"numpy": 1, "jax": 1}',
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert _first_jax_ready(port, proc, limit_s=120) == "jax:rope-rotate"
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_a_serving_app_primes_its_grader_once_it_has_started(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Priming holds the interpreter about 0.4 s: beside the app's imports and start-up it kept
    a start's `/healthz` 0.4-0.8 s later, so the app primes once, after its start (issue 54)."""
    from fastapi.testclient import TestClient

    from app import main
    from graders import Grader

    monkeypatch.setenv("POOL_WARM_ON_START", "true")
    get_settings.cache_clear()
    monkeypatch.setattr(Grader, "start", lambda self: None)  # no sandboxes: the order is checked
    calls: list[str] = []
    app = main.create_app()
    monkeypatch.setattr(service, "prime_in_background", lambda: calls.append("while built"))
    monkeypatch.setattr(
        main, "prime_in_background", lambda: calls.append(f"started: {hasattr(app.state, 'jobs')}")
    )
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200
        assert calls == ["started: True"]
    assert service.current_grader() is None  # the app's shutdown stopped it


def test_a_grader_built_on_first_use_primes_itself(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `worker`, or a first job where the pool was not warmed at start: no app primes it."""
    from graders import Grader

    monkeypatch.setattr(Grader, "start", lambda self: None)
    calls: list[str] = []
    monkeypatch.setattr(service, "prime_in_background", lambda: calls.append("primed"))
    try:
        service.get_grader()
        service.get_grader()
    finally:
        service.shutdown_grader()
    assert calls == ["primed"]
