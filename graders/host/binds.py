"""The grader's files a sandbox sees, flat in protocol.SANDBOX_DIR: one list for every start."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from graders import protocol

GRADERS = Path(__file__).resolve().parents[1]
INSIDE = GRADERS / "inside"
# Name in the sandbox -> file on the host. The inside scripts import one another and these two
# by these names (tests/graders/test_layout.py checks that they import nothing else of ours).
SOURCES: Final = {
    "harness.py": INSIDE / "harness.py",
    "job_limits.py": INSIDE / "job_limits.py",
    "zygote.py": INSIDE / "zygote.py",
    "inherited.py": INSIDE / "inherited.py",
    "cleaner.py": INSIDE / "cleaner.py",
    "jax_child.py": INSIDE / "jax_child.py",
    "whole_programs.py": INSIDE / "whole_programs.py",
    "messages.py": INSIDE / "messages.py",
    "experiment_harness.py": INSIDE / "experiment_harness.py",
    "experiment.py": INSIDE / "experiment.py",
    "content_harness.py": INSIDE / "content_harness.py",
    "protocol.py": GRADERS / "protocol.py",
    "seccomp.py": GRADERS / "sandbox" / "seccomp.py",
}


def in_sandbox(name: str) -> str:
    """Where the sandbox finds one of the grader's files."""
    return f"{protocol.SANDBOX_DIR}/{name}"


def bind_files(*names: str) -> list[tuple[str, str]]:
    """Read-only binds (host path, sandbox path) of these files, by their names in the sandbox."""
    return [(str(SOURCES[name]), in_sandbox(name)) for name in names]
