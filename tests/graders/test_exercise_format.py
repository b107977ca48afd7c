"""One exercise format: the grader reads exercise.yaml and mistakes.yaml as `validate` does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.config import ROOT
from graders.exercise_format import read_exercise_meta, read_mistakes
from graders.judging.spec import SpecError, load_spec

FOLDERS = sorted(p.parent for p in ROOT.glob("exercises/*/exercise.yaml")) + sorted(
    p.parent for p in ROOT.glob("courses/*/exercises/*/exercise.yaml")
)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_the_grader_sees_what_the_schema_says(folder: Path) -> None:
    meta, mistakes = read_exercise_meta(folder), read_mistakes(folder)
    spec = load_spec(folder)
    assert (spec.slug, spec.entry_kind, spec.entry_name) == (
        meta.slug,
        meta.entry.kind,
        meta.entry.name,
    )
    assert spec.frameworks == list(meta.frameworks)
    assert (spec.time_ms, spec.memory_mb) == (meta.limits.time_ms, meta.limits.memory_mb)
    assert (spec.rtol, spec.atol) == (meta.tolerance.rtol, meta.tolerance.atol)
    assert [m.id for m in spec.mistakes] == [m.id for m in mistakes.mistakes]


@pytest.fixture
def gather(tmp_path: Path) -> Path:
    folder = tmp_path / "position-embedding-gather"
    shutil.copytree(
        ROOT / "exercises" / folder.name, folder, ignore=shutil.ignore_patterns("__pycache__")
    )
    return folder


def test_a_typo_in_exercise_yaml_stops_the_grader_with_its_place(gather: Path) -> None:
    meta = gather / "exercise.yaml"
    meta.write_text(meta.read_text().replace("  time_ms:", "  time_msec:"))
    with pytest.raises(SpecError) as caught:
        load_spec(gather)
    assert "limits.time_msec" in str(caught.value)
    assert "python -m app validate" in str(caught.value)


def test_a_limit_out_of_bounds_is_refused_not_defaulted(gather: Path) -> None:
    meta = gather / "exercise.yaml"
    text = meta.read_text()
    start = text.index("time_ms:")
    end = text.index("\n", start)
    meta.write_text(text[:start] + "time_ms: 5" + text[end:])
    with pytest.raises(SpecError, match=r"limits\.time_ms"):
        load_spec(gather)


def test_a_function_exercise_without_mistakes_yaml_is_refused(gather: Path) -> None:
    (gather / "mistakes.yaml").unlink()
    with pytest.raises(SpecError, match=r"no mistakes\.yaml"):
        load_spec(gather)


def test_an_unknown_key_in_mistakes_yaml_is_refused(gather: Path) -> None:
    mistakes = gather / "mistakes.yaml"
    mistakes.write_text(mistakes.read_text().replace("    hint:", "    hnt:", 1))
    with pytest.raises(SpecError, match=r"mistakes\.0\.(hint|hnt)"):
        load_spec(gather)


def test_the_schema_says_every_declared_mistake_runs_in_a_sandbox() -> None:
    """No content code runs in a trusted process (docs/grading.md, "Which code runs where")."""
    from graders.exercise_format import Mistake

    said = Mistake.model_fields["sandboxed"].description or ""
    assert "trusted" not in said
    assert "content sandbox" in said and "sandbox pool" in said
