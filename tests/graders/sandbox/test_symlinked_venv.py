"""A virtualenv reached through a symlink still grades (the sandbox binds only real paths)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.graders.sandbox.helpers import requires_sandbox

pytestmark = requires_sandbox
ROOT = Path(__file__).resolve().parents[3]


def test_grading_works_from_a_venv_behind_a_symlink(tmp_path: Path) -> None:
    link = tmp_path / "venv-link"
    link.symlink_to(os.path.realpath(sys.prefix), target_is_directory=True)
    python = link / "bin" / os.path.basename(sys.executable)
    solution = ROOT / "exercises" / "position-embedding-gather" / "solutions" / "numpy.py"
    env = {**os.environ, "APP_DATA_DIR": str(tmp_path / "data")}
    result = subprocess.run(
        [str(python), "-m", "app", "grade", "position-embedding-gather", str(solution), "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["verdict"] == "accepted", report["message"]
