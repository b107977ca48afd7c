"""`validate` does not grade again a check that passed with the same files, and grades again
every check whose files changed (real grader; a missing bwrap shows when grading is attempted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.authoring.grading_check import checks_for, grading_problems
from app.authoring.validate_cache import PassedChecks
from app.content.loader import load_course
from graders.host.interpreter import PoolSettings
from tests.authoring.test_grading_check import SLUG, _one_numpy_exercise

POOL = PoolSettings(sizes={"numpy": 1})


def _grade(exercises: Path, passed: PassedChecks) -> list[str]:
    course = load_course(exercises.parent / "lessons", exercises)
    assert course.problems == []
    found = grading_problems(course, exercises_dir=exercises, pool=POOL, passed=passed)
    return [f"{p.path}: {p.message}" for p in found]


def test_passed_checks_are_not_graded_again_until_a_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exercises = _one_numpy_exercise(tmp_path)
    (exercises.parent / "lessons").mkdir()
    folder = exercises / SLUG
    (folder / "mistakes.yaml").write_text("mistakes: []\n")
    passed = PassedChecks(tmp_path / "validate-cache")
    assert _grade(exercises, passed) == []
    course = load_course(exercises.parent / "lessons", exercises)
    assert all(passed.passed(check) for check in checks_for(course))

    # Grading cannot start now: a second run passes only because nothing is graded again.
    monkeypatch.setenv("GRADER_BWRAP", str(tmp_path / "no-such-bwrap"))
    assert _grade(exercises, PassedChecks(tmp_path / "validate-cache")) == []

    # A changed starter changes the key of every check of its exercise: all are graded again.
    starter = folder / "starter" / "numpy.py"
    starter.write_text(starter.read_text() + "\n# edited\n")
    found = _grade(exercises, PassedChecks(tmp_path / "validate-cache"))
    assert len(found) == 1 and "grading is unavailable" in found[0], found


def test_a_check_that_found_a_problem_is_not_recorded(tmp_path: Path) -> None:
    exercises = _one_numpy_exercise(tmp_path)  # its one declared mistake is the model solution
    (exercises.parent / "lessons").mkdir()
    passed = PassedChecks(tmp_path / "validate-cache")
    first = _grade(exercises, passed)
    assert len(first) == 1 and "must be a wrong answer" in first[0]
    assert _grade(exercises, passed) == first  # graded, and found, again
    course = load_course(exercises.parent / "lessons", exercises)
    recorded = {check.kind for check in checks_for(course) if passed.passed(check)}
    assert "mistake" not in recorded and {"solution", "starter"} <= recorded
