"""`make compose-check` in CI: a miss names its step, and the CI stage cleans up after itself.

The check itself needs Docker (CI's compose stage, `.ci/compose-check`, runs it); these tests
keep its reporting and its CI wiring true without Docker.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from app.config import ROOT

sys.path.insert(0, str(ROOT / "deploy"))
from checkhard import _timed  # deploy/ is not a package
from checklib import Miss, Steps

CI_STAGE = ROOT / ".ci" / "compose-check"


def test_a_miss_names_its_step_and_the_run_fails(capsys: pytest.CaptureFixture[str]) -> None:
    steps = Steps()
    with steps.step("a student signs up") as notes:
        notes.append("first@example.org")
    with steps.step("grading burst, restart db mid-burst"):
        raise Miss("students saw {'500': 3}")
    assert steps.summary("compose-check") == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("compose-check: ok   a student signs up")
    assert out[1].startswith("compose-check: MISS grading burst, restart db mid-burst")
    assert "students saw {'500': 3}" in out[1]
    assert out[-1].startswith("compose-check: FAILED (1 misses)")
    assert out[-1].endswith("grading burst, restart db mid-burst: students saw {'500': 3}")


def test_an_error_inside_a_step_is_named_with_it_then_raised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    steps = Steps()
    with pytest.raises(ConnectionRefusedError), steps.step("pages: 6 students sign up and read"):
        raise ConnectionRefusedError("[Errno 111] Connection refused")
    line = capsys.readouterr().out.strip()
    assert line.startswith("compose-check: MISS pages: 6 students sign up and read")
    assert "ConnectionRefusedError: [Errno 111] Connection refused" in line
    assert steps.summary("compose-check") == 1


def test_all_steps_passed_is_the_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    steps = Steps()
    with steps.step("fresh start"):
        pass
    assert steps.summary("compose-check: upgrade drill") == 0
    assert "compose-check: upgrade drill: all steps passed in" in capsys.readouterr().out


def test_ci_runs_the_compose_stage_with_the_upgrade_drill() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    assert "bash .ci/compose-check" in run
    stage = CI_STAGE.read_text()
    assert subprocess.run(["bash", "-n", str(CI_STAGE)], check=False).returncode == 0
    assert "trap stop_everything EXIT" in stage
    assert "make --no-print-directory compose-check UPGRADE_FROM=" in stage
    # only the check's own containers are removed, and only a dockerd this stage started stopped
    assert "label=com.docker.compose.project=coursecheck" in stage
    assert 'kill -TERM "$dockerd_pid"' in stage
    previous = (ROOT / "deploy" / "previous-release").read_text().split()[0]
    known = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{previous}^{{commit}}"], check=False
    )
    assert known.returncode == 0, f"deploy/previous-release names {previous}, not a commit here"


def test_the_check_targets_only_this_machine() -> None:
    for name in ("compose_check.py", "checklib.py", "upgrade_drill.py"):
        text = (ROOT / "deploy" / name).read_text()
        for url in re.findall(r"https?://[^\s\"']*", text):
            assert url.startswith("http://127.0.0.1"), f"{name} addresses {url}"
    ports = (ROOT / "docker-compose.yml").read_text()
    assert '"127.0.0.1:${WEB_PORT:-8000}:8000"' in ports


def test_bad_input_must_be_refused_at_once_with_the_fix_named() -> None:
    said = [
        "sh",
        "-c",
        "echo 'noise'; echo 'ERROR: in service db: set POSTGRES_PASSWORD' >&2; exit 1",
    ]
    note = _timed("POSTGRES_PASSWORD missing", said, ["set POSTGRES_PASSWORD"], None)
    assert note.startswith("POSTGRES_PASSWORD missing in ")
    assert note.endswith("...ERROR: in service db: set POSTGRES_PASSWORD")
    with pytest.raises(Miss, match="exit 0"):  # accepted: no refusal at all
        _timed("accepted", ["sh", "-c", "echo 'set POSTGRES_PASSWORD'"], ["set X"], None)
    with pytest.raises(Miss, match="said 'a traceback"):  # refused without the fix named
        _timed("traceback", ["sh", "-c", "echo 'a traceback'; exit 1"], ["set X"], None)
