"""`python -m app`: each command as outside scripts call it, including its bad inputs."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from app.config import ROOT
from tests.conftest import run_cli


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    return {"APP_DATA_DIR": str(data_dir), **extra}


def test_validate_json_counts_the_real_course(data_dir: Path) -> None:
    # grading is checked by `make validate` and tests/content/test_grading_check.py
    result = run_cli("validate", "--json", "--no-grade", env=_env(data_dir))
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(summary) == {
        "lessons",
        "quiz_questions",
        "exercises",
        "misconceptions",
        "assessments",
        "problems",
    }
    assert summary["lessons"] >= 2 and summary["exercises"] >= 5 and summary["assessments"] >= 1
    assert summary["problems"] == []


def test_validate_exits_1_and_names_the_broken_file(data_dir: Path, content_dir: Path) -> None:
    (content_dir / "lessons" / "50-broken.md").write_text("---\ntitle: [\n---\n")
    result = run_cli("validate", "--no-grade", env=_env(data_dir, CONTENT_DIR=str(content_dir)))
    assert result.returncode == 1
    assert "lessons/50-broken.md:3: invalid YAML" in result.stdout
    as_json = run_cli(
        "validate", "--json", "--no-grade", env=_env(data_dir, CONTENT_DIR=str(content_dir))
    )
    problems = json.loads(as_json.stdout.strip().splitlines()[-1])["problems"]
    assert problems == [
        {"path": "lessons/50-broken.md", "line": 3, "message": problems[0]["message"]}
    ]


def test_migrate_is_idempotent_and_creates_a_missing_data_dir(tmp_path: Path) -> None:
    nested = tmp_path / "does" / "not" / "exist"
    for _ in range(2):
        result = run_cli("migrate", env=_env(nested))
        assert result.returncode == 0, result.stderr
    assert (nested / "app.db").is_file()


def test_unusable_data_dir_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = run_cli("migrate", env=_env(blocker / "var"))
    assert result.returncode == 1
    assert "cannot create the data directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_users_create_is_idempotent_and_token_works(data_dir: Path) -> None:
    env = _env(data_dir)
    args = (
        "users",
        "create",
        "--email",
        "Ada@Example.org",
        "--password",
        "s3cret-enough",
        "--role",
        "instructor",
        "--name",
        "Ada",
    )
    first, second = run_cli(*args, env=env), run_cli(*args, env=env)
    assert first.returncode == 0 and "created: ada@example.org (instructor)" in first.stdout
    assert second.returncode == 0 and "already exists" in second.stdout
    token = run_cli("users", "token", "--email", "ada@example.org", env=env)
    assert token.returncode == 0
    bearer = token.stdout.strip().splitlines()[-1]
    assert len(bearer) >= 40

    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app()) as client:
        response = client.get(
            "/api/content/problems", headers={"Authorization": f"Bearer {bearer}"}
        )
        assert response.status_code == 200


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--email", "x@example.org", "--password", "short"), "at least 8 characters"),
        (("--email", "not-an-email", "--password", "long enough"), "is not an email address"),
    ],
)
def test_users_create_rejects_bad_input(
    data_dir: Path, args: tuple[str, ...], message: str
) -> None:
    result = run_cli("users", "create", *args, env=_env(data_dir))
    assert result.returncode == 1 and message in result.stderr


def test_token_for_unknown_account_is_a_clear_error(data_dir: Path) -> None:
    result = run_cli("users", "token", "--email", "ghost@example.org", env=_env(data_dir))
    assert result.returncode == 1 and "no account with email" in result.stderr


def test_production_refuses_the_default_secret(data_dir: Path) -> None:
    result = run_cli("serve", env=_env(data_dir, APP_ENV="production"))
    assert result.returncode == 1
    assert "SECRET_KEY is still the development default" in result.stderr
    assert "Traceback" not in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_refuses_a_port_in_use(data_dir: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port), env=_env(data_dir))
    assert result.returncode == 1
    assert f"port {port} on 127.0.0.1 is already in use" in result.stderr


def test_serve_refuses_several_web_processes_in_the_embedded_mode(data_dir: Path) -> None:
    """Each process would start a grader pool of its own; that needs the scale-out mode."""
    result = run_cli("serve", "--port", "0", "--workers", "2", env=_env(data_dir))
    assert result.returncode == 1
    assert "--workers above 1 needs the scale-out mode" in result.stderr


LMS = "https://lms.example.org"


@pytest.mark.parametrize(
    "command",
    [
        ["users", "create", "--email", "new@example.org", "--password", "correct horse"],
        ["users", "token", "--email", "new@example.org"],
        ["lti", "register", "--issuer", LMS, "--client-id", "tool", "--deployment-id", "1"]
        + [f"--{kind}-url={LMS}/{kind}" for kind in ("auth", "token", "jwks")],
        ["serve", "--port", "0"],
        ["stats", "items", "--json"],
    ],
    ids=["users-create", "users-token", "lti-register", "serve", "stats-items"],
)
def test_a_command_before_migrate_says_the_database_is_not_set_up(
    tmp_path: Path, command: list[str]
) -> None:
    result = run_cli(*command, env=_env(tmp_path / "fresh"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "error: the database is not set up yet: run `python -m app migrate` "
        "(or `make run`, which also does it), then try again"
    )
    assert "Traceback" not in result.stderr and "sqlalchemy" not in result.stderr.lower()


def test_serve_answers_healthz_then_stops_cleanly(data_dir: Path) -> None:
    port = _free_port()
    env = {**__import__("os").environ, **_env(data_dir)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz") as resp:
                    body = json.loads(resp.read())
                    assert body["status"] == "ok"
                    assert body["grader"] in ("starting", "ready"), body  # this machine can grade
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "server did not start within 60 s"
                time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # uvicorn shuts down gracefully, then re-raises SIGTERM so the exit status reports it
    assert proc.returncode in (0, -15)
    log = proc.stdout.read().decode() if proc.stdout else ""
    assert "Finished server process" in log and "Traceback" not in log


def test_unknown_command_is_a_usage_error() -> None:
    result = run_cli("frobnicate")
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_new_exercise_and_lesson_pass_validate(tmp_path: Path, data_dir: Path) -> None:
    content = tmp_path / "course"
    (content / "lessons").mkdir(parents=True)
    (content / "exercises").mkdir()
    env = _env(data_dir, CONTENT_DIR=str(content))
    made = run_cli("new", "exercise", "rope-angles", "--frameworks", "numpy", env=env)
    assert made.returncode == 0, made.stderr
    assert "created exercises/rope-angles/exercise.yaml" in made.stdout
    assert (
        run_cli("new", "lesson", "rope-intro", "--title", 'Rope "intro"', env=env).returncode == 0
    )
    lesson = content / "lessons" / "01-rope-intro.md"
    assert 'title: "Rope \\"intro\\""' in lesson.read_text()
    meta = (content / "exercises" / "rope-angles" / "exercise.yaml").read_text()
    assert "draft: true" in meta and "name: rope_angles" in meta and "# TODO" in meta
    result = run_cli("validate", "--json", env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["problems"] == []
    assert (summary["lessons"], summary["exercises"], summary["misconceptions"]) == (1, 1, 1)
    assert summary["quiz_questions"] == 2

    again = run_cli("new", "exercise", "rope-angles", env=env)
    assert again.returncode == 1 and "already exists" in again.stderr
    bad = run_cli("new", "lesson", "Rope_Intro", env=env)
    assert bad.returncode == 1 and "not a valid slug" in bad.stderr
    unknown = run_cli("new", "exercise", "x-y", "--frameworks", "numpy,tf", env=env)
    assert unknown.returncode == 1 and "frameworks must be" in unknown.stderr


def test_validate_points_at_a_broken_scaffold_file(tmp_path: Path, data_dir: Path) -> None:
    content = tmp_path / "course"
    (content / "lessons").mkdir(parents=True)
    env = _env(data_dir, CONTENT_DIR=str(content))
    assert run_cli("new", "exercise", "shift", env=env).returncode == 0
    meta = content / "exercises" / "shift" / "exercise.yaml"
    meta.write_text(meta.read_text().replace("  time_ms: 2000", "  time_ms: 5"))
    result = run_cli("validate", env=env)  # the broken exercise does not load: nothing to grade
    assert result.returncode == 1
    lines = meta.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.startswith("  time_ms: 5 "))
    assert f"exercises/shift/exercise.yaml:{line}: limits.time_ms" in result.stdout


def test_schemas_are_written_valid_and_up_to_date(tmp_path: Path) -> None:
    from app.authoring.jsonschema import SCHEMAS, schema_for

    result = run_cli("schemas", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for name in SCHEMAS:
        written = json.loads((tmp_path / f"{name}.schema.json").read_text())
        assert written == schema_for(name)
        assert written["$schema"].startswith("https://json-schema.org/")
        committed = ROOT / "docs" / "json-schemas" / f"{name}.schema.json"
        assert json.loads(committed.read_text()) == written, "run `python -m app schemas`"
    import yaml

    exercise = json.loads((tmp_path / "exercise.schema.json").read_text())
    for path in sorted((ROOT / "exercises").glob("*/exercise.yaml")):
        data = yaml.safe_load(path.read_text())
        assert set(exercise["required"]) <= set(data) <= set(exercise["properties"]), path
    lesson = json.loads((tmp_path / "lesson.schema.json").read_text())
    quiz_types = set(lesson["properties"]["quiz"]["items"]["discriminator"]["mapping"])
    assert quiz_types == {"single", "multiple", "numeric", "shape"}


GATHER = ROOT / "exercises" / "position-embedding-gather"


def test_grade_json_reports_a_right_answer(data_dir: Path) -> None:
    solution = str(GATHER / "solutions" / "numpy.py")
    result = run_cli("grade", "position-embedding-gather", solution, "--json", env=_env(data_dir))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1])["verdict"] == "accepted"


def test_grade_on_bytes_that_are_not_utf8_is_a_syntax_error_report(
    data_dir: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "latin1.py"
    broken.write_bytes(b"import numpy as np\n\n# caf\xe9\ndef f():\n    pass\n")
    result = run_cli(
        "grade", "position-embedding-gather", str(broken), "--json", env=_env(data_dir)
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["verdict"] == "syntax_error"
    assert report["line"] == 3
    assert "byte 0xe9 at line 3, column 6 is not valid UTF-8" in report["message"]
    words = run_cli("grade", "position-embedding-gather", str(broken), env=_env(data_dir))
    assert words.returncode == 0 and "line 3, column 6" in words.stdout


def test_grade_refuses_unknown_exercise_framework_and_missing_file(
    data_dir: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "latin1.py"
    broken.write_bytes(b"\xff\n")
    unknown = run_cli("grade", "no-such-exercise", str(broken), env=_env(data_dir))
    assert unknown.returncode == 2 and "unknown exercise" in unknown.stderr
    framework = run_cli(
        "grade",
        "learned-pos-embed-forward",
        str(broken),
        "--framework",
        "torch",
        env=_env(data_dir),
    )
    assert framework.returncode == 2 and "not offered" in framework.stderr
    missing = run_cli("grade", "position-embedding-gather", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_grade_and_validate_say_at_once_why_grading_is_unavailable(
    data_dir: Path, tmp_path: Path
) -> None:
    # An empty cache: the cases (computed in a sandbox since issue 50) cannot come from it.
    env = _env(
        data_dir,
        GRADER_BWRAP=str(tmp_path / "no-such-bwrap"),
        MISTAKES_CACHE_DIR=str(tmp_path / "empty-cache"),
    )
    solution = str(GATHER / "solutions" / "numpy.py")
    graded = run_cli("grade", "position-embedding-gather", solution, "--json", env=env, timeout=60)
    assert graded.returncode == 3
    assert "apt-get install bubblewrap" in graded.stderr
    assert json.loads(graded.stdout.strip().splitlines()[-1])["verdict"] == "internal_error"
    checked = run_cli("validate", "--json", env=env, timeout=60)
    assert checked.returncode == 1
    problems = json.loads(checked.stdout.strip().splitlines()[-1])["problems"]
    assert [p["message"] for p in problems if "unavailable" in p["message"]] == [
        next(p["message"] for p in problems if "bubblewrap" in p["message"])
    ]


def test_experiments_prints_the_cached_table_and_refuses_unknown_slugs(data_dir: Path) -> None:
    from graders.lab.experiment_reference import content_hash, seeded_names

    lab = ROOT / "exercises" / "lab-learned-vs-sinusoidal"
    cache = data_dir / "experiments-cache"
    cache.mkdir(parents=True, exist_ok=True)
    for scheme, name in seeded_names(lab):  # cached runs: the command prints without training
        refused = scheme == "learned"
        run = {
            "train_length": 16,
            "accuracy_by_length": {"16": 1.0, "24": None if refused else 0.7},
            "trained_by_length": {"16": 1.0, "24": None if refused else 1.0},
            "new_by_length": {"16": None, "24": None if refused else 0.22},
            "cpu_seconds": 5.0,
        }
        (cache / f"{lab.name}--{name}--{content_hash(lab, name)}.json").write_text(json.dumps(run))
    result = run_cli("experiments", "--exercise", lab.name, env=_env(data_dir))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("lab-learned-vs-sinusoidal (trained on length 16; ")
    assert lines[1].split() == ["scheme", "16", "(1x)", "24", "old", "24", "new", "cpu", "s"]
    assert lines[3].split() == ["learned", "1.000", "(1.00-1.00)", "refused", "refused", "15.0"]
    sine = ["sinusoidal", "1.000", "(1.00-1.00)", "1.000", "(1.00-1.00)", "0.220", "(0.22-0.22)"]
    assert lines[5].split() == [*sine, "15.0"]  # mean (lowest-highest seed); CPU of 3 runs
    assert lines[7].startswith("lab-learned-vs-sinusoidal by position (mean over the seeds")
    result = run_cli("experiments", "--exercise", "no-such-lab", env=_env(data_dir))
    assert result.returncode == 2 and "no experiment exercise" in result.stderr


def test_prepare_readies_every_course_not_only_the_first(data_dir: Path) -> None:
    # The caches are keyed by content: after `make prepare` this only checks they are current.
    result = run_cli("prepare", env=_env(data_dir), timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    courses = [
        line.split(":", 1)[0] for line in result.stdout.splitlines() if " is up to date " in line
    ]
    first = ROOT.joinpath("course.yaml").read_text(encoding="utf-8")
    assert courses[0] in first  # the repository root's course comes first
    others = sorted(p.name for p in (ROOT / "courses").iterdir() if (p / "course.yaml").is_file())
    assert sorted(courses[1:]) == others
