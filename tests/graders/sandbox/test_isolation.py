"""What a sandboxed job can see and reach: only the interpreter, its own /tmp, no network."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graders.sandbox.mounts import interpreter_dirs
from tests.graders.sandbox.helpers import requires_sandbox, run

pytestmark = requires_sandbox
ROOT = Path(__file__).resolve().parents[3]


def test_python_runs_and_imports_numpy() -> None:
    result = run("import numpy as np\nreport(int(np.arange(5).sum()))")
    assert result.status.exit_code == 0, result.text
    assert result.value == 10


@pytest.mark.parametrize(
    "path",
    [
        str(ROOT / "exercises"),
        str(ROOT / "var"),
        str(ROOT / "app"),
        str(ROOT / "graders"),
        "/root",
        "/root/.bash_history",
        "/etc/shadow",
        "/etc/passwd",
        "/home",
        "/work/shared",
    ],
)
def test_host_paths_are_not_readable(path: str) -> None:
    code = f"""
try:
    with open({path!r}, "rb") as f:
        report(("read", len(f.read())))
except IsADirectoryError:
    import os
    report(("listed", sorted(os.listdir({path!r}))))
except OSError as exc:
    report(("error", exc.errno))
"""
    result = run(code)
    kind, detail = result.value
    if kind == "listed":  # a directory on the way to the interpreter: it shows only that way
        assert detail == sorted(_interpreter_children(path)), (path, detail)
    else:
        assert kind == "error", (path, detail)


def _interpreter_children(parent: str) -> set[str]:
    """Names directly below `parent` that lead to the interpreter's own directories."""
    names = set()
    for directory in interpreter_dirs():
        rel = os.path.relpath(directory, parent)
        if not rel.startswith(".."):
            names.add(rel.split(os.sep)[0])
    return names


def test_only_the_interpreter_and_system_are_mounted() -> None:
    result = run("import os\nreport(sorted(os.listdir('/')))")
    assert set(result.value) <= _interpreter_children("/") | {
        "bin",
        "dev",
        "etc",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "proc",
        "root",
        "sbin",
        "tmp",
        "usr",
    }
    checkout = os.path.dirname(os.path.realpath(sys.prefix))  # only .venv is bound from it
    listing = run(f"import os\nreport(sorted(os.listdir({checkout!r})))").value
    assert listing == [".venv"]


def test_proc_shows_only_sandbox_processes() -> None:
    code = """
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
report(sorted(p for p in os.listdir('/proc') if p.isdigit()))
child.kill()
"""
    assert run(code).value == ["1", "2"]


def test_parent_secrets_do_not_reach_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_KEY", "s3cret")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:p@db/x")
    result = run("import os\nreport(dict(os.environ))", env={"EXTRA": "yes"})
    env = result.value
    assert isinstance(env, dict)
    assert "SECRET_KEY" not in env and "DATABASE_URL" not in env
    assert env["EXTRA"] == "yes" and env["HOME"] == "/tmp" and env["OMP_NUM_THREADS"] == "1"
    assert not any("s3cret" in v or "u:p@" in v for v in env.values())


def test_only_the_five_standard_fds_are_open() -> None:
    leaked = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(leaked, True)  # a careless parent fd must still not reach the job
    try:
        code = "import os, sys\nreport((sorted(os.listdir('/proc/self/fd')), sys.stdin.read()))"
        fds, stdin = run(code).value
    finally:
        os.close(leaked)
    assert fds == ["0", "1", "2", "3", "4", "5"]  # 5 is listdir's own directory fd
    assert stdin == ""


def test_runs_as_an_unprivileged_uid() -> None:
    code = """
import os
try:
    os.setuid(0)
    report("became root")
except OSError:  # EINVAL: uid 0 does not even exist in the sandbox's user namespace
    report((os.getuid(), os.getgid()))
"""
    assert run(code).value == (1000, 1000)


@pytest.fixture
def host_listener() -> Iterator[int]:
    """A TCP port listening on the host's loopback during the test."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def test_no_network(host_listener: int) -> None:
    code = f"""
import socket
out = {{}}
for port in (5432, 6379, {host_listener}):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2)
        out[port] = "connected"
    except OSError as exc:
        out[port] = exc.errno
for family in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK, socket.AF_PACKET):
    try:
        socket.socket(family, socket.SOCK_RAW if family == socket.AF_PACKET else socket.SOCK_DGRAM)
        out[int(family)] = "created"
    except OSError as exc:
        out[int(family)] = exc.errno
try:
    socket.getaddrinfo("example.com", 443)
    out["dns"] = "resolved"
except OSError as exc:
    out["dns"] = type(exc).__name__
socket.socket(socket.AF_UNIX).close()
report(out)
"""
    out = run(code).value
    assert isinstance(out, dict)
    assert out.pop("dns") == "gaierror"
    assert set(out.values()) == {1}, out  # EPERM: every non-AF_UNIX socket is refused
