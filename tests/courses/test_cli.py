"""`courses list|add|refresh` and `grade --course` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli, shipped_content
from tests.courses.helpers import ATTENTION, tiny_course


def _env(data_dir: Path) -> dict[str, str]:
    return {"APP_DATA_DIR": str(data_dir)}


def test_list_prints_every_course_with_its_version(data_dir: Path) -> None:
    result = run_cli("courses", "list", "--json", env=_env(data_dir))
    assert result.returncode == 0, result.stderr
    courses = json.loads(result.stdout.strip().splitlines()[-1])
    assert [c["slug"] for c in courses] == ["positional-embeddings", "attention-step-by-step"]
    assert set(courses[0]) == {"slug", "title", "folder", "version"}
    served = shipped_content()  # the repository's content, its exam windows pinned
    assert courses[1]["folder"] == str(served / "courses" / ATTENTION.name)
    assert courses[1]["version"]
    assert courses[0]["folder"] == str(served)


def test_add_serves_a_new_folder_and_refresh_checks_it(data_dir: Path, tmp_path: Path) -> None:
    folder = tiny_course(tmp_path / "tiny", "tiny-course", "Tiny course")
    added = run_cli("courses", "add", str(folder), env=_env(data_dir))
    assert added.returncode == 0, added.stderr
    assert "added tiny-course (Tiny course): 1 lessons, 0 exercises" in added.stdout
    listed = run_cli("courses", "list", "--json", env=_env(data_dir))
    slugs = [c["slug"] for c in json.loads(listed.stdout.strip().splitlines()[-1])]
    assert slugs[-1] == "tiny-course"
    assert run_cli("courses", "refresh", "tiny-course", env=_env(data_dir)).returncode == 0
    lesson = next((folder / "lessons").glob("*.md"))
    lesson.write_text("no front matter\n", "utf-8")
    refused = run_cli("courses", "refresh", "tiny-course", env=_env(data_dir))
    assert refused.returncode == 1
    assert "last good version keeps serving" in refused.stdout
    unknown = run_cli("courses", "refresh", "nope", env=_env(data_dir))
    assert unknown.returncode == 2 and "unknown course 'nope'" in unknown.stderr


def test_add_refuses_a_folder_without_a_course_yaml(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_cli("courses", "add", str(tmp_path / "empty"), env=_env(data_dir))
    assert result.returncode == 2 and "course.yaml" in result.stderr


def test_grade_in_another_course(data_dir: Path) -> None:
    solution = ATTENTION / "exercises/merge-heads/solutions/numpy.py"
    args = ("grade", "merge-heads", str(solution), "--framework", "numpy", "--json")
    result = run_cli(*args, "--course", "attention-step-by-step", env=_env(data_dir))
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1])["verdict"] == "accepted"
    first = run_cli(*args, env=_env(data_dir))
    assert first.returncode == 2 and "unknown exercise 'merge-heads'" in first.stderr
    unknown = run_cli(*args, "--course", "nope", env=_env(data_dir))
    assert unknown.returncode == 2 and "unknown course 'nope'" in unknown.stderr
