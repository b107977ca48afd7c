"""`python -m app bench --scenario page-cpu`: the web app's CPU per page, measured in a process
of its own by `python -m app.cli.page_cpu` (it builds the app, which the bench may not import)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def run_in_child(students: int) -> dict[str, Any]:
    """`measure` in a process of its own (it points the settings at a data directory of its own):
    what `python -m app bench --scenario page-cpu` prints."""
    found = subprocess.run(
        [sys.executable, "-m", "app.cli.page_cpu", "--students", str(students)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(found.stdout.strip().splitlines()[-1])
    return result
