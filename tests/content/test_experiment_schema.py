"""Experiment exercises in content: the section is strict, and the folder needs no test cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from app.config import ROOT
from app.content.loader import Problem, load_exercise
from graders.exercise_format import ExerciseMeta

LAB = ROOT / "exercises" / "lab-learned-vs-sinusoidal"


def _meta() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((LAB / "exercise.yaml").read_text(encoding="utf-8"))
    return data


def test_the_lab_exercises_load_without_cases_or_mistakes() -> None:
    problems: list[Problem] = []
    exercise = load_exercise(LAB, ROOT, problems)
    assert exercise.meta.entry.kind == "experiment" and problems == []
    assert exercise.meta.experiment is not None
    assert exercise.meta.experiment.slot == "absolute"
    assert not (LAB / "cases.py").exists() and exercise.mistakes == []


def test_an_experiment_needs_its_section_and_nothing_else_may_have_one() -> None:
    meta = _meta()
    del meta["experiment"]
    with pytest.raises(ValidationError, match="experiment section"):
        ExerciseMeta.model_validate(meta)
    meta = _meta()
    meta["entry"]["kind"] = "class"
    with pytest.raises(ValidationError, match="experiment section"):
        ExerciseMeta.model_validate(meta)


def test_goals_must_be_at_measured_lengths_and_typos_fail() -> None:
    meta = _meta()
    meta["experiment"]["goals"].append({"factor": 3, "min_accuracy": 0.5})
    with pytest.raises(ValidationError, match="not among the measured factors"):
        ExerciseMeta.model_validate(meta)
    meta = _meta()
    meta["experiment"]["step"] = 10
    with pytest.raises(ValidationError, match="step"):
        ExerciseMeta.model_validate(meta)


def test_experiments_are_torch_only(tmp_path: Path) -> None:
    meta = _meta()
    meta["frameworks"] = ["numpy"]
    with pytest.raises(ValidationError, match="torch only"):
        ExerciseMeta.model_validate(meta)
