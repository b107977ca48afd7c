"""`python -m app validate` on a course whose content files try to read the app's secrets.

Issue 50, point 7, as an editor meets it: the files were saved (from a browser or a shell), and
validate runs every one of them; none reaches the secret key, the database, another course or
the network, and the secret appears nowhere in what validate prints.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.conftest import run_cli
from tests.graders.test_content_sandbox import SECRET, SLUG, host, hostile, listener

__all__ = ["host", "hostile", "listener"]  # fixtures, shared with the grader's tests


def _course(tmp_path: Path, exercise: Path) -> Path:
    """A course with the hostile exercise alone, offered in NumPy only (quick to grade)."""
    content = tmp_path / "validated"
    (content / "lessons").mkdir(parents=True)
    folder = content / "exercises" / SLUG
    shutil.copytree(exercise, folder)
    meta = yaml.safe_load((folder / "exercise.yaml").read_text())
    meta["frameworks"] = ["numpy"]
    meta.pop("lesson", None)
    (folder / "exercise.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    for kind in ("solutions", "starter"):
        for name in ("torch.py", "jax.py"):
            (folder / kind / name).unlink()
    return content


def test_validate_runs_hostile_content_where_it_finds_nothing(
    tmp_path: Path, data_dir: Path, hostile: Path
) -> None:
    content = _course(tmp_path, hostile)
    env = {
        "APP_DATA_DIR": str(data_dir),
        "CONTENT_DIR": str(content),
        "MISTAKES_CACHE_DIR": str(tmp_path / "cache"),
        "SECRET_KEY": SECRET,
        "DATABASE_URL": f"sqlite:///{data_dir}/app.db",  # the app's own; the files seek the fake
    }
    result = run_cli("validate", "--json", "--regrade", env=env, timeout=600)
    printed = result.stdout + result.stderr
    assert SECRET not in printed and "LEAKED" not in printed, printed[-3000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["problems"] == [], summary["problems"]
    assert result.returncode == 0


def test_validate_names_a_content_file_that_raises(
    tmp_path: Path, data_dir: Path, hostile: Path
) -> None:
    content = _course(tmp_path, hostile)
    cases = content / "exercises" / SLUG / "cases.py"
    cases.write_text("import os\nraise RuntimeError(os.environ.get('SECRET_KEY', 'no key here'))\n")
    env = {
        "APP_DATA_DIR": str(data_dir),
        "CONTENT_DIR": str(content),
        "MISTAKES_CACHE_DIR": str(tmp_path / "cache"),
        "SECRET_KEY": SECRET,
        "DATABASE_URL": f"sqlite:///{data_dir}/app.db",  # the app's own; the files seek the fake
    }
    result = run_cli("validate", "--json", env=env, timeout=600)
    printed = result.stdout + result.stderr
    assert SECRET not in printed, printed[-3000:]
    assert result.returncode == 1
    problems = json.loads(result.stdout.strip().splitlines()[-1])["problems"]
    assert any("cases.py failed: RuntimeError: no key here" in p["message"] for p in problems), (
        problems
    )
