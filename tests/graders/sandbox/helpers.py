"""Helpers that run snippets in a real bubblewrap sandbox (no mocks)."""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass, replace
from typing import Any

import pytest

from graders.sandbox import (
    ExitStatus,
    ResourceUsage,
    SandboxLimits,
    SandboxProcess,
    sandbox_python,
    spawn,
)

LIMITS = SandboxLimits(
    cpu_seconds=20,
    memory_mb=1024,
    max_processes=32,
    max_file_mb=4,
    max_open_files=64,
    output_bytes=64 * 1024,
    tmpfs_mb=16,
)

# A snippet writes its findings here: `report(obj)` sends repr(obj) on the result pipe (fd 4).
PRELUDE = "import os\ndef report(obj):\n    os.write(4, repr(obj).encode())\n"


# Sandboxes need bubblewrap (root or not). In CI (`CI` set) a missing bwrap fails, never skips.
requires_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("CI"),
    reason="needs bubblewrap (apt-get install bubblewrap)",
)
# Root gives each sandbox a host uid of its own; an ordinary user has no such layer to test.
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="root-only layer: a host uid per sandbox")


@dataclass
class Run:
    """Everything one sandboxed snippet produced."""

    status: ExitStatus
    result: bytes
    output: bytes
    truncated: bool
    usage: ResourceUsage

    @property
    def value(self) -> Any:
        """What the snippet passed to report() (a Python literal)."""
        import ast

        return ast.literal_eval(self.result.decode())

    @property
    def text(self) -> str:
        """stdout+stderr as text, for assertion messages."""
        return self.output.decode("utf-8", "replace")


def start(
    code: str,
    *,
    limits: SandboxLimits = LIMITS,
    ro_binds: list[tuple[str, str]] | None = None,
    env: dict[str, str] | None = None,
) -> SandboxProcess:
    """Spawn `python -I -c PRELUDE+code` in a sandbox."""
    # The venv by its real path, as the grader starts it: in a worktree `.venv` is a symlink,
    # and `.venv/bin/python` does not exist inside the sandbox.
    argv = [sandbox_python(), "-I", "-c", PRELUDE + code]
    return spawn(argv, limits=limits, ro_binds=ro_binds or [], env=env or {})


def collect(proc: SandboxProcess, *, job: bytes = b"", timeout: float = 20.0) -> Run:
    """Send the job, read the result pipe to EOF, wait (killing the tree after `timeout`)."""
    chunks: list[bytes] = []

    def reader() -> None:
        while chunk := os.read(proc.result_fd, 65536):
            chunks.append(chunk)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        view = memoryview(job)
        while view:
            view = view[os.write(proc.job_fd, view) :]
    except BrokenPipeError:
        pass
    os.close(proc.job_fd)
    try:
        status = proc.wait(timeout)
    except TimeoutError:
        proc.kill_tree()
        status = proc.wait(5)
    thread.join(5)
    output, truncated = proc.output()
    proc.close()
    return Run(status, b"".join(chunks), output, truncated, proc.resource_usage())


def run(
    code: str,
    *,
    timeout: float = 20.0,
    limits: SandboxLimits = LIMITS,
    ro_binds: list[tuple[str, str]] | None = None,
    env: dict[str, str] | None = None,
) -> Run:
    """Start a snippet and collect it."""
    return collect(start(code, limits=limits, ro_binds=ro_binds, env=env), timeout=timeout)


def with_limits(**changes: int) -> SandboxLimits:
    """LIMITS with some fields changed."""
    return replace(LIMITS, **changes)
