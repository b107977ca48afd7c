"""app/web/processes.py: web processes with a listening socket each share a class evenly."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import redis

from app.config import ROOT
from app.web.processes import port_socket

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/5")
CONNECTIONS = 200


def test_two_sockets_of_one_process_share_a_port() -> None:
    first = port_socket("127.0.0.1", 0)
    port = first.getsockname()[1]
    second = port_socket("127.0.0.1", port)
    try:
        assert second.getsockname()[1] == port
    finally:
        first.close()
        second.close()


def _children(pid: int) -> set[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return {int(p) for p in path.read_text().split()} if path.exists() else set()


def _web_processes(server: int) -> set[int]:
    """The server's children that run uvicorn (not multiprocessing's resource tracker)."""
    found = set()
    for pid in _children(server):
        try:
            if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text():
                found.add(pid)
        except OSError:
            continue
    return found


ESTABLISHED, LISTEN = "01", "0A"  # as /proc/net/tcp writes TCP states


def _sockets_on(port: int, state: str) -> dict[int, int]:
    """Socket inode -> 1 for every TCP socket in `state` whose local port is `port`."""
    inodes = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, found, inode = fields[1], fields[3], int(fields[9])
        if int(local.split(":")[1], 16) == port and found == state:
            inodes[inode] = 1
    return inodes


def _connections_held(pid: int, port: int, state: str = ESTABLISHED) -> int:
    wanted = _sockets_on(port, state)
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and int(target[8:-1]) in wanted:
            held += 1
    return held


def _get(conn: http.client.HTTPConnection, path: str) -> int:
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response.status


def _wait_for(port: int, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            if _get(conn, "/healthz") == 200:
                conn.close()
                return
        except OSError:
            pass
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        assert time.monotonic() < deadline, "the web processes did not answer within 60 s"
        time.sleep(0.2)


@pytest.fixture
def redis_prefix() -> str:
    """A Redis key prefix of this test's own (the scale-out mode needs Redis)."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"Redis is required in CI: {exc}")
        pytest.skip(f"Redis not reachable: {exc}")
    finally:
        client.close()
    return f"test-{uuid.uuid4().hex[:10]}"


def test_web_processes_share_a_class_evenly_replace_a_dead_one_and_stop_cleanly(
    data_dir: Path, redis_prefix: str
) -> None:
    """Issue 23: with one shared socket one process took 65% of a class's connections."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "APP_DATA_DIR": str(data_dir),
        "REDIS_URL": REDIS_URL,
        "REDIS_PREFIX": redis_prefix,
        "POOL_WARM_ON_START": "false",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port), "--workers", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    conns: list[http.client.HTTPConnection] = []
    try:
        _wait_for(port, proc)
        webs = _web_processes(proc.pid)
        assert len(webs) == 2, webs
        deadline = time.monotonic() + 60
        while not all(_connections_held(pid, port, LISTEN) for pid in webs):
            assert time.monotonic() < deadline, "both web processes should listen once started"
            time.sleep(0.2)
        for _ in range(CONNECTIONS):  # a class arriving: keep-alive connections, one page each
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            assert _get(conn, "/healthz") == 200
            conns.append(conn)
        held = sorted(_connections_held(pid, port) for pid in webs)
        assert sum(held) == CONNECTIONS, held
        assert held[0] >= CONNECTIONS // 4, f"uneven: {held}"  # a fair coin: 100 +- 7

        victim = min(webs)
        os.kill(victim, signal.SIGKILL)  # a web process killed: another takes its place
        deadline = time.monotonic() + 60
        while True:  # and listens only once its app has started (no connection waits on it)
            newcomers = _web_processes(proc.pid) - webs
            if newcomers and _connections_held(min(newcomers), port, LISTEN):
                break
            assert time.monotonic() < deadline, "the dead web process was not replaced"
            time.sleep(0.2)
        _wait_for(port, proc)
    finally:
        for conn in conns:
            conn.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    log = proc.stdout.read().decode() if proc.stdout else ""
    assert proc.returncode == 0, log[-3000:]
    assert "starting another" in log and "Traceback" not in log, log[-3000:]
    assert log.count("Finished server process") >= 2, log[-3000:]


def test_web_processes_that_cannot_start_stop_the_server_within_seconds() -> None:
    """A broken app is not restarted for ever: every process fails the same way, so say so."""
    from app.web.processes import serve_processes

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = {"app": "app.no_such_module:create_app", "factory": True, "log_level": "error"}
    started = time.monotonic()
    assert serve_processes(options=options, host="127.0.0.1", port=port, count=2) == 1
    assert time.monotonic() - started < 30
