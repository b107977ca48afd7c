"""Run a short Python script in a fresh interpreter, as a command would start, and read its
last printed line as JSON (what a start had imported, say)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def last_json(script: str, *, env: dict[str, str], cwd: Path, args: tuple[str, ...] = ()) -> Any:
    """The script's last line of output, parsed; a failing script fails the test with its output."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
