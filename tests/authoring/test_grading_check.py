"""`validate` grades each exercise: a broken model solution, an accepted starter and a mistake
that is not wrong are all reported at their file (and line), through the real grader."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.authoring.grading_check import grading_problems
from app.config import ROOT
from app.content.loader import load_course
from graders.host.interpreter import PoolSettings

SLUG = "position-embedding-gather"


def _one_numpy_exercise(tmp_path: Path) -> Path:
    """A copy of the gather exercise offering NumPy only, with one declared mistake."""
    exercises = tmp_path / "exercises"
    folder = exercises / SLUG
    shutil.copytree(ROOT / "exercises" / SLUG, folder, ignore=shutil.ignore_patterns("__pycache__"))
    meta = (folder / "exercise.yaml").read_text()
    meta = meta.replace("frameworks: [numpy, torch, jax]", "frameworks: [numpy]")
    (folder / "exercise.yaml").write_text(meta.replace("lesson: learned-absolute\n", ""))
    (folder / "mistakes.yaml").write_text(
        "mistakes:\n"
        "  - id: not-a-mistake\n"
        "    title: Actually right\n"
        "    hint: This code is correct.\n"
        "    framework: numpy\n"
        "    code: |\n"
        + "".join(
            f"      {line}\n" for line in (folder / "solutions/numpy.py").read_text().splitlines()
        )
    )
    return exercises


def _problems(exercises: Path) -> dict[str, str]:
    (exercises.parent / "lessons").mkdir(exist_ok=True)
    course = load_course(exercises.parent / "lessons", exercises)
    assert course.problems == []
    found = grading_problems(course, exercises_dir=exercises, pool=PoolSettings(sizes={"numpy": 1}))
    return {f"{p.path}:{p.line}" if p.line else p.path: p.message for p in found}


def test_the_real_exercise_copy_passes_except_the_fake_mistake(tmp_path: Path) -> None:
    problems = _problems(_one_numpy_exercise(tmp_path))
    assert list(problems) == [f"exercises/{SLUG}/mistakes.yaml:2"]
    assert "must be a wrong answer; got Accepted" in problems[f"exercises/{SLUG}/mistakes.yaml:2"]


def test_broken_solution_and_finished_starter_are_reported(tmp_path: Path) -> None:
    exercises = _one_numpy_exercise(tmp_path)
    folder = exercises / SLUG
    solution = (folder / "solutions/numpy.py").read_text()
    (folder / "starter/numpy.py").write_text(solution)
    (folder / "solutions/numpy.py").write_text(solution.replace("return ", "return 1 + ", 1))
    problems = _problems(exercises)
    assert (
        "the model solution is not accepted: Wrong answer"
        in problems[f"exercises/{SLUG}/solutions/numpy.py"]
    )
    assert "the starter code is accepted" in problems[f"exercises/{SLUG}/starter/numpy.py"]


def test_cases_that_cannot_tell_a_wrong_variant_apart_are_a_problem(tmp_path: Path) -> None:
    # Every case gathers from a single position: "every position gets the first position's
    # values" and "positions shifted by one" give the right answer there, so the tests are weak.
    exercises = _one_numpy_exercise(tmp_path)
    folder = exercises / SLUG
    (folder / "mistakes.yaml").write_text("mistakes: []\n")
    (folder / "cases.py").write_text(
        "import numpy as np\n\n\n"
        "def cases():\n"
        "    table = np.arange(12, dtype=np.float32).reshape(4, 3) / 7\n"
        "    positions = np.zeros((2, 1), dtype=np.float32)\n"
        "    inputs = {'positions': positions, 'embedding_table': table}\n"
        "    return [{'name': 'one position', 'hidden': False, 'inputs': inputs}]\n"
    )
    (exercises.parent / "lessons").mkdir(exist_ok=True)
    course = load_course(exercises.parent / "lessons", exercises)
    found = grading_problems(course, exercises_dir=exercises, pool=PoolSettings(sizes={"numpy": 1}))
    messages = [p.message for p in found if p.path == f"exercises/{SLUG}/cases.py"]
    assert len(messages) == 2, found
    joined = " ".join(messages)
    assert "gives every position the first position's values" in joined
    assert "shifts every position by one" in joined
    assert "add a case where that answer differs" in joined
