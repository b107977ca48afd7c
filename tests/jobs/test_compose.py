"""docker-compose.yml and the Dockerfile stay true: same commands as here, secrets required.

Docker is not available on our machines, so the file is checked by running each of its commands
natively (with only the changes `tests.jobs.compose.native` documents) against the real
PostgreSQL and Redis.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
from pathlib import Path

import pytest

from app.cli import build_parser
from app.config import ROOT
from app.grading.worker import DRAIN_SECONDS
from tests.jobs import compose
from tests.jobs.conftest import RedisSpace
from tests.jobs.helpers import wait_until
from tests.jobs.procs import AppProcess, free_port, run, wait_http_ok

SECCOMP_FILE = ROOT / "deploy" / "seccomp-bwrap.json"
SECCOMP_OPT = "seccomp=./deploy/seccomp-bwrap.json"
SECRET_NAME = re.compile(r"PASSWORD|SECRET|TOKEN|PRIVATE", re.IGNORECASE)
REQUIRED = re.compile(r"\$\{[A-Z_]+:\?[^}]*\}")


def test_the_services_of_a_scale_out_deployment() -> None:
    services = compose.services()
    assert set(services) == {"db", "redis", "migrate", "prepare", "web", "worker"}
    for name in ("db", "redis", "web", "worker"):
        assert services[name]["healthcheck"]["test"], f"{name} has no health check"
    assert services["db"]["volumes"] and services["redis"]["volumes"]
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
        assert services[name]["depends_on"]["redis"] == {"condition": "service_healthy"}
    worker = services["worker"]
    # --scale worker=N needs no fixed name and no published port
    assert "container_name" not in worker and "ports" not in worker
    grace = int(str(worker["stop_grace_period"]).removesuffix("s"))
    assert grace > DRAIN_SECONDS, "compose would SIGKILL a worker before its drain ends"
    assert services["prepare"]["depends_on"]["migrate"] == {
        "condition": "service_completed_successfully"
    }
    assert services["worker"]["depends_on"]["prepare"] == {
        "condition": "service_completed_successfully"
    }
    for name in ("prepare", "web", "worker"):  # each runs graders in bubblewrap sandboxes
        opts = set(services[name]["security_opt"])
        assert {SECCOMP_OPT, "apparmor=unconfined", "systempaths=unconfined"} <= opts
        assert services[name].get("privileged") is not True
        assert "SYS_ADMIN" not in services[name].get("cap_add", [])
        assert "user" not in services[name], "the image's non-root user runs the app"


def test_the_seccomp_profile_allows_namespaces_and_refuses_what_docker_refuses() -> None:
    profile = json.loads(SECCOMP_FILE.read_text())
    denied = {n for rule in profile["syscalls"] for n in rule["names"]}
    assert {r["action"] for r in profile["syscalls"]} == {"SCMP_ACT_ERRNO"}
    # what bubblewrap does to build a sandbox
    assert not denied & {"clone", "clone3", "unshare", "mount", "umount2", "pivot_root", "setns"}
    # kernel modules, keys, tracing other processes, BPF, clocks, reboot: refused, as Docker does
    assert {
        "init_module",
        "finit_module",
        "kexec_load",
        "keyctl",
        "add_key",
        "ptrace",
        "process_vm_readv",
        "bpf",
        "perf_event_open",
        "clock_settime",
        "reboot",
        "open_by_handle_at",
        "userfaultfd",
        "io_uring_setup",
    } <= denied


def test_images_are_arguments_with_official_defaults_and_the_port_stays_local() -> None:
    services = compose.services()
    assert services["db"]["image"] == "${POSTGRES_IMAGE:-postgres:15}"
    assert services["redis"]["image"] == "${REDIS_IMAGE:-redis:7}"
    text = compose.COMPOSE_FILE.read_text()
    assert "PYTHON_IMAGE: ${PYTHON_IMAGE:-python:3.11-slim-bookworm}" in text
    assert "NODE_IMAGE: ${NODE_IMAGE:-node:20-bookworm-slim}" in text
    assert services["web"]["ports"] == ["127.0.0.1:${WEB_PORT:-8000}:8000"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG PYTHON_IMAGE=python:3.11-slim-bookworm" in dockerfile
    assert "ARG NODE_IMAGE=node:20-bookworm-slim" in dockerfile
    assert "FROM ${PYTHON_IMAGE} AS app" in dockerfile
    assert "FROM ${NODE_IMAGE} AS assets" in dockerfile
    assert re.search(r"^USER app$", dockerfile, re.MULTILINE), "the app must not run as root"


def test_secrets_come_from_the_environment_and_are_required() -> None:
    text = compose.COMPOSE_FILE.read_text()
    checked = 0
    for name, service in compose.services().items():
        for key, value in (service.get("environment") or {}).items():
            if SECRET_NAME.search(key):
                assert REQUIRED.fullmatch(str(value)), f"{name}.{key} must be ${{VAR:?message}}"
                checked += 1
        url = (service.get("environment") or {}).get("DATABASE_URL")
        if url is not None:
            assert "${POSTGRES_PASSWORD:?" in url, f"{name}: the database password is required"
    assert checked >= 3
    # nothing that looks like a literal password or key
    assert not re.search(r"(PASSWORD|SECRET_KEY):\s+[^$\s{][^\n]*", text)


def test_each_app_command_is_a_command_of_our_cli() -> None:
    expected = {"migrate": "cmd_migrate", "web": "cmd_serve", "worker": "cmd_worker"}
    for service, handler in expected.items():
        argv = compose.command(service)
        assert argv[:3] == ["python", "-m", "app"], service
        assert build_parser().parse_args(argv[3:]).func.__name__ == handler
    assert compose.command("web")[3:] == ["serve", "--host", "0.0.0.0", "--port", "8000"]
    assert compose.command("worker")[3:] == ["worker"]
    health = compose.healthcheck("worker")
    assert health[:3] == ["python", "-m", "app"]
    assert build_parser().parse_args(health[3:]).health is True


def test_the_compose_commands_run_here_as_they_run_in_the_containers(
    scale_env: dict[str, str], redis_space: RedisSpace, tmp_path: Path
) -> None:
    env = {**scale_env, "LOG_FORMAT": "json"}
    migrate = run(compose.native(compose.command("migrate")), env)
    assert migrate.returncode == 0, migrate.stderr
    assert "database is up to date" in migrate.stdout
    port = free_port()
    web = AppProcess("web", compose.native(compose.command("web"), port=port), env, tmp_path)
    worker = AppProcess("worker", compose.native(compose.command("worker")), env, tmp_path)
    assert web.argv[1:] == ["-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)]
    try:
        web.start()
        worker.start()
        wait_http_ok(f"http://127.0.0.1:{port}/healthz", 120, web)
        web_health = run(compose.native(compose.healthcheck("web"), port=port), env)
        assert web_health.returncode == 0, web_health.stderr
        worker_health = compose.native(compose.healthcheck("worker"))
        wait_until(
            lambda: run(worker_health, env).returncode == 0, 120, "worker --health", step=1.0
        )
        assert worker.signal(signal.SIGTERM) == 0
        assert web.signal(signal.SIGTERM) in (0, -signal.SIGTERM)  # uvicorn re-raises it
        assert "Application shutdown complete" in web.log()
    finally:
        web.ensure_stopped()
        worker.ensure_stopped()
    assert run(compose.native(compose.healthcheck("web"), port=port), env).returncode != 0
    assert run(worker_health, env).returncode != 0


def test_the_database_and_redis_health_checks_run_here() -> None:
    for service in ("db", "redis"):
        argv = compose.healthcheck(service)
        if shutil.which(argv[0]) is None:
            if os.environ.get("CI"):
                pytest.fail(f"{argv[0]} is required in CI")
            pytest.skip(f"{argv[0]} is not installed")
        result = run(argv, {})
        assert result.returncode == 0, f"{service}: {result.stdout}{result.stderr}"


def test_the_image_has_the_sandbox_tools_and_runs_the_same_cli() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in ("bubblewrap", "libseccomp2", "util-linux"):
        assert package in dockerfile
    assert 'CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]' in (
        dockerfile
    )
    docs = (ROOT / "docs" / "operations.md").read_text()
    for needed in (SECCOMP_FILE.name, "apparmor=unconfined", "systempaths=unconfined"):
        assert needed in docs and needed in dockerfile
