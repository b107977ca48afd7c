"""Every exercise's model solutions pass, starters fail, and known mistakes are named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import ROOT
from app.grading.service import mistakes_cache_dir
from graders.engine import Grader, UnknownExercise, UnknownFramework
from graders.host.interpreter import PoolSettings
from graders.judging.spec import load_spec

EXERCISES = ROOT / "exercises"
FOLDERS = sorted(p for p in EXERCISES.iterdir() if (p / "exercise.yaml").is_file())
COMBOS = [(f.name, fw) for f in FOLDERS for fw in load_spec(f).frameworks]
MISTAKES = [(f.name, m.id) for f in FOLDERS for m in load_spec(f).mistakes]


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    """One warm grader for the module, as the web app would hold it (with the known mistakes'
    outputs that `make prepare` computed, keyed by each exercise's files and library versions)."""
    instance = Grader(
        EXERCISES,
        PoolSettings(
            sizes={"numpy": 1, "torch": 1, "jax": 1}, jax_cache_dir=str(ROOT / "var" / "jax-cache")
        ),
        mistakes_cache_dir=mistakes_cache_dir(),
    )
    instance.start()
    yield instance
    instance.stop()


@pytest.mark.parametrize(("slug", "framework"), COMBOS)
def test_model_solution_is_accepted(grader: Grader, slug: str, framework: str) -> None:
    code = (EXERCISES / slug / "solutions" / f"{framework}.py").read_text()
    report = grader.grade(exercise=slug, code=code, framework=framework)
    assert report.verdict == "accepted", report.message
    spec = load_spec(EXERCISES / slug)
    # an experiment's tests are its module checks (1 absolute, 2 relative) and its goals
    # (exercise.yaml); the others' are their cases
    if spec.experiment:
        checks = 1 if spec.experiment["slot"] == "absolute" else 2
        wanted = checks + len(spec.experiment["goals"])
    else:
        wanted = len(spec.cases)
    assert report.score == 1.0 and len(report.tests) == wanted


@pytest.mark.parametrize(("slug", "framework"), COMBOS)
def test_starter_is_not_accepted(grader: Grader, slug: str, framework: str) -> None:
    code = (EXERCISES / slug / "starter" / f"{framework}.py").read_text()
    report = grader.grade(exercise=slug, code=code, framework=framework)
    assert report.verdict != "accepted" and report.score < 1.0
    # the report reaches browsers as strict JSON (no NaN or Infinity, even for -inf masks)
    json.dumps(report.to_dict(), allow_nan=False)


@pytest.mark.parametrize(("slug", "mistake_id"), MISTAKES)
def test_known_mistake_is_rejected_and_named(grader: Grader, slug: str, mistake_id: str) -> None:
    spec = load_spec(EXERCISES / slug)
    mistake = next(m for m in spec.mistakes if m.id == mistake_id)
    report = grader.grade(exercise=slug, code=mistake.code, framework=mistake.framework)
    assert report.verdict == "wrong_answer", report.message
    failing = [t for t in report.tests if not t.passed]
    if spec.entry_kind == "function":
        named = [t.misconception["id"] for t in failing if t.misconception]
        # on some inputs two mistakes give identical outputs (T=1), so others may appear too
        assert mistake_id in named, [t.message for t in failing]
        assert named.count(mistake_id) >= len(named) / 2
    else:
        assert all(t.message for t in failing)


def test_run_mode_grades_only_visible_tests(grader: Grader) -> None:
    code = (EXERCISES / "position-embedding-gather/solutions/numpy.py").read_text()
    report = grader.grade(exercise="position-embedding-gather", code=code, mode="run")
    assert report.verdict == "accepted" and report.tests
    assert not any(t.hidden for t in report.tests)


def test_unknown_exercise_and_framework_raise(grader: Grader) -> None:
    with pytest.raises(UnknownExercise):
        grader.grade(exercise="../etc", code="")
    with pytest.raises(UnknownFramework):
        grader.grade(exercise="learned-pos-embed-forward", code="", framework="numpy")


def test_wrong_shape_feedback_reaches_the_report(grader: Grader) -> None:
    code = (
        "def position_embedding_gather(positions, embedding_table):\n"
        "    out = embedding_table[positions.astype(int)]\n"
        "    return out.transpose(1, 0, 2)\n"
    )
    report = grader.grade(exercise="position-embedding-gather", code=code)
    first = report.tests[0]
    assert report.verdict == "wrong_answer"
    assert "expected shape (2, 4, 4), got (4, 2, 4)" in first.message


def test_syntax_error_reports_the_line(grader: Grader, tmp_path: Path) -> None:
    code = "import numpy as np\n\ndef position_embedding_gather(positions, table)\n    pass\n"
    report = grader.grade(exercise="position-embedding-gather", code=code)
    assert report.verdict == "syntax_error" and report.line == 3
    assert report.tests == []
