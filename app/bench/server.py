"""Start the real thing for a benchmark: `python -m app serve` (and workers, in scale-out mode).

Everything runs on this machine; the scale-out mode uses the local PostgreSQL and Redis with a
database and key prefix of its own, dropped afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.bench.content import quiet_content
from app.config import ROOT, get_settings

PG_ADMIN = os.environ.get("BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/6")
POOL = {"numpy": 2, "torch": 1, "jax": 1}  # the embedded default (JAX: per exercise)
USERS = 8  # submissions are spread over accounts: each has its own rate limit


class Api:
    """A small JSON client for the running server, one bearer token per simulated student."""

    def __init__(self, base: str, tokens: list[str]) -> None:
        self.base, self.tokens = base, tokens
        self._next = 0

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if token or self.tokens:
            headers["Authorization"] = f"Bearer {token or self.tokens[0]}"
        request = urllib.request.Request(  # noqa: S310 - loopback only
            self.base + path, data=data, method=method, headers=headers
        )
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            text = response.read().decode()
        return json.loads(text) if text.startswith(("{", "[")) else text

    def token(self) -> str:
        """The next student's token (round robin)."""
        self._next = (self._next + 1) % len(self.tokens)
        return self.tokens[self._next]

    def submit_and_wait(
        self, exercise: str, framework: str, code: str, timeout: float = 300
    ) -> tuple[float, str]:
        """Submit, follow the event stream (as the browser does) to the verdict: (ms, verdict)."""
        ms, event = self.submit_and_follow(exercise, framework, code, timeout)
        return ms, str(event["verdict"])

    def submit_and_follow(
        self, exercise: str, framework: str, code: str, timeout: float = 300
    ) -> tuple[float, dict[str, Any]]:
        """Like submit_and_wait, with the whole final event (verdict, new_compilation...)."""
        token = self.token()
        started = time.perf_counter()
        body = {"exercise": exercise, "framework": framework, "code": code}
        sid = self.call("POST", "/api/submissions", body, token)["id"]
        deadline = time.monotonic() + timeout
        queued_ms: float | None = None
        while time.monotonic() < deadline:
            request = urllib.request.Request(  # noqa: S310 - our own http URL
                f"{self.base}/api/submissions/{sid}/events",
                headers={"Authorization": f"Bearer {token}"},
            )
            with urllib.request.urlopen(request, timeout=120) as stream:  # noqa: S310
                for raw in stream:
                    line = raw.decode()
                    if line.startswith("data: "):
                        event = json.loads(line[6:])
                        if event["status"] != "queued" and queued_ms is None:
                            queued_ms = (time.perf_counter() - started) * 1000
                        if event["status"] == "done":
                            # how long it waited in its lane before a grading thread took it
                            event["queued_ms"] = queued_ms
                            return (time.perf_counter() - started) * 1000, event
        return (time.perf_counter() - started) * 1000, {"verdict": "lost"}


@dataclass
class Deployment:
    """The processes of one benchmark run and how to reach them."""

    api: Api
    started: float  # time.monotonic() when the server process was started
    env: dict[str, str]
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: Path = Path()

    def kill_worker(self) -> None:
        """SIGKILL one worker (as a crash would) and start another in its place."""
        victim = self.workers.pop(0)
        victim.send_signal(signal.SIGKILL)
        victim.wait(30)
        self.workers.append(_spawn(["worker"], self.env, self.logs / "worker-new.log"))

    def restart_server(self) -> None:
        """Stop the server (SIGTERM, as an operator's restart) and start it again on the same
        data dir and port; `started` is then the new start."""
        server = self.processes[0]
        server.terminate()
        server.wait(60)
        self.started = time.monotonic()
        port = self.api.base.rsplit(":", 1)[1]
        log = self.logs / "server-restarted.log"
        self.processes[0] = _spawn(["serve", "--port", port], self.env, log)
        _wait_healthy(self.api, self.processes[0], log)

    def server_cpu_seconds(self) -> float | None:
        """CPU time the `serve` process and every process under it have used so far.

        None where /proc cannot be read (not Linux): the figure is then left out, never guessed.
        """
        if not self.processes:
            return None
        return _tree_cpu_seconds(self.processes[0].pid)

    def log_tail(self) -> str:
        """The end of the server's log, for a failed run."""
        path = self.logs / "server.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""


def _tree_cpu_seconds(root: int) -> float | None:
    """User and system CPU seconds of `root` and every process under it, ended ones too."""
    ticks = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    used: dict[int, float] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        children.setdefault(int(fields[1]), []).append(int(name))
        # utime, stime, and the same of children already ended and waited for (a job's process)
        used[int(name)] = sum(int(value) for value in fields[11:15]) / ticks
    if root not in used:
        return None
    total, frontier = 0.0, [root]
    while frontier:
        pid = frontier.pop()
        total += used[pid]
        frontier.extend(children.get(pid, ()))
    return total


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cli(env: dict[str, str], *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


def cli_in(env: dict[str, str], *args: str) -> str:
    """Run `python -m app ARGS` against the deployment (a scenario's own set-up)."""
    return _cli(env, *args)


def _spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        env=env,
        cwd=ROOT,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def _wait_healthy(api: Api, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            api.call("GET", "/healthz")
            return
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"the server did not start; see {log}") from None
            time.sleep(0.05)


def _wait_grader(api: Api, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if api.call("GET", "/healthz").get("grader") == "ready":
            return
        time.sleep(0.2)
    raise RuntimeError(f"grading did not get ready: {api.call('GET', '/healthz')}")


@contextlib.contextmanager
def deployment(
    *,
    scale_out: bool = False,
    workers: int = 2,
    pool: dict[str, int] | None = None,
    web_processes: int = 1,
) -> Iterator[Deployment]:
    """A fresh data dir, a migrated database, USERS students, a server (and workers) running."""
    with (
        tempfile.TemporaryDirectory(prefix="course-bench-") as data_dir,
        _databases(scale_out) as urls,
    ):
        content = Path(os.environ.get("CONTENT_DIR") or get_settings().content_dir)
        env = {
            **os.environ,
            **urls,
            "APP_DATA_DIR": data_dir,
            "CONTENT_DIR": str(quiet_content(content, Path(data_dir) / "content")),
            "POOL_SIZES": json.dumps(pool or POOL),
            "POOL_WARM_ON_START": "true",
            "SUBMISSIONS_PER_MINUTE": "100000",
        }
        if not scale_out:
            env.pop("DATABASE_URL", None)
            env.pop("REDIS_URL", None)
        _cli(env, "migrate")
        tokens = []
        for n in range(USERS):
            email = f"bench-{n}@example.org"
            _cli(env, "users", "create", "--email", email, "--password", "bench-password")
            tokens.append(_cli(env, "users", "token", "--email", email))
        logs = Path(data_dir)
        port = _free_port()
        started = time.monotonic()
        serve = ["serve", "--port", str(port)]
        if web_processes > 1:
            serve += ["--workers", str(web_processes)]
        server = _spawn(serve, env, logs / "server.log")
        run = Deployment(Api(f"http://127.0.0.1:{port}", tokens), started, env, [server], logs=logs)
        try:
            if scale_out:
                run.workers = [
                    _spawn(["worker"], env, logs / f"worker-{n}.log") for n in range(workers)
                ]
            _wait_healthy(run.api, server, logs / "server.log")
            if scale_out:  # the workers' graders, not only the web process
                _wait_grader(run.api)
            yield run
        finally:
            for proc in [*run.workers, *run.processes]:
                proc.terminate()
            for proc in [*run.workers, *run.processes]:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()


@contextlib.contextmanager
def _databases(scale_out: bool) -> Iterator[dict[str, str]]:
    """Scale-out: a PostgreSQL database and a Redis key prefix of this run's own."""
    if not scale_out:
        yield {}
        return
    import psycopg
    import redis

    name = f"course_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    try:
        yield {
            "DATABASE_URL": f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}",
            "REDIS_URL": REDIS_URL,
            "REDIS_PREFIX": prefix,
        }
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        client = redis.Redis.from_url(REDIS_URL)
        for key in list(client.scan_iter(match=f"{prefix}*")):
            client.delete(key)
        client.close()
