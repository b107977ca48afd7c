"""Starting and stopping real `python -m app` processes for the multi-process tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx2

from app.config import ROOT
from tests.jobs.helpers import wait_until


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class AppProcess:
    """One `python -m app ...` process with its output in a log file (appended across restarts)."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logs: Path) -> None:
        self.name = name
        self.argv = argv
        self.env = {**os.environ, **env}
        self.log_path = logs / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> AppProcess:
        """Start (again)."""
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        self.starts += 1
        return self

    @property
    def pid(self) -> int:
        """The running process's id."""
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        """Still running."""
        return self.proc is not None and self.proc.poll() is None

    def signal(self, signum: int, timeout: float = 120) -> int:
        """Send a signal and wait for the exit code."""
        assert self.proc is not None
        self.proc.send_signal(signum)
        return self.proc.wait(timeout=timeout)

    def kill(self) -> int:
        """SIGKILL: no clean-up of any kind."""
        return self.signal(signal.SIGKILL, timeout=30)

    def ensure_stopped(self) -> None:
        """Kill if still running (test clean-up)."""
        if self.alive():
            assert self.proc is not None
            self.proc.kill()
            self.proc.wait()

    def log(self) -> str:
        """Everything it printed so far."""
        return self.log_path.read_text(errors="replace")


def wait_http_ok(url: str, timeout: float, proc: AppProcess) -> None:
    """Wait for a 200 from url while making sure the process has not died."""

    def ok() -> bool:
        assert proc.alive(), f"{proc.name} exited early:\n{proc.log()[-3000:]}"
        try:
            return httpx2.get(url, timeout=2).status_code == 200
        except httpx2.HTTPError:
            return False

    wait_until(ok, timeout, f"{url} to answer", step=0.25)


def run(
    argv: list[str], env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run a command to completion with the test environment."""
    return subprocess.run(
        argv,
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def pause(seconds: float) -> None:
    """Sleep (named, so a reader sees that the wait is deliberate)."""
    time.sleep(seconds)
