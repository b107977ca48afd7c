"""The lab's reference runs: cached by content hash, printed as a table of accuracy by length."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from app.config import ROOT
from app.content.lab import format_table, lab_folders, reference_runs
from graders.experiment_reference import content_hash, load_or_run, schemes_of

EXERCISES = ROOT / "exercises"
LAB = EXERCISES / "lab-relative-extrapolation"


def test_lab_folders_are_the_experiments() -> None:
    names = [f.name for f in lab_folders(EXERCISES)]
    assert names == ["lab-learned-vs-sinusoidal", "lab-relative-extrapolation"]
    assert lab_folders(EXERCISES, "lab-relative-extrapolation") == [LAB]


def test_schemes_are_the_references_then_the_model_solution() -> None:
    assert schemes_of(LAB) == ["none", "learned", "sinusoidal", "rope", "alibi", "reference"]


def test_the_hash_follows_the_settings_and_the_reference(tmp_path: Path) -> None:
    copy = tmp_path / LAB.name
    shutil.copytree(LAB, copy)
    assert content_hash(copy, "rope") == content_hash(LAB, "rope")
    assert content_hash(copy, "rope") != content_hash(copy, "alibi")
    before = content_hash(copy, "reference")
    (copy / "reference.py").write_text((LAB / "reference.py").read_text() + "\n# changed\n")
    assert content_hash(copy, "reference") != before
    assert content_hash(copy, "rope") == content_hash(LAB, "rope")  # only the reference moved
    meta = (copy / "exercise.yaml").read_text().replace("steps: 400", "steps: 300")
    (copy / "exercise.yaml").write_text(meta)
    assert content_hash(copy, "rope") != content_hash(LAB, "rope")


def test_a_cached_result_is_read_without_training(tmp_path: Path) -> None:
    result = {
        "scheme": "learned",
        "train_length": 16,
        "accuracy_by_length": {"16": 1.0, "24": None, "32": None, "64": None},
        "cpu_seconds": 4.2,
    }
    for scheme in schemes_of(LAB):
        path = tmp_path / f"{LAB.name}--{scheme}--{content_hash(LAB, scheme)}.json"
        path.write_text(json.dumps({**result, "scheme": scheme}))
    assert load_or_run(LAB, "learned", tmp_path) == result
    table = format_table(LAB.name, reference_runs(LAB, tmp_path))
    lines = table.splitlines()
    assert lines[0] == "lab-relative-extrapolation (trained on length 16)"
    assert lines[1].split() == [
        "scheme",
        "16",
        "(1x)",
        "24",
        "(1.5x)",
        "32",
        "(2x)",
        "64",
        "(4x)",
        "cpu",
        "s",
    ]
    assert lines[3].split() == ["learned", "1.000", "refused", "refused", "refused", "4.2"]
    assert len(lines) == 2 + len(schemes_of(LAB))


def test_the_page_figure_comes_from_the_cache_only(tmp_path: Path) -> None:
    from app.content.lab_figure import accuracy_svg, figure_for, table_for

    assert figure_for(LAB, tmp_path) is None  # nothing cached: no figure, and no training
    for scheme in schemes_of(LAB):
        refused = scheme == "learned"
        accuracy = {"16": 1.0, "24": None if refused else 0.9, "32": None if refused else 0.8}
        path = tmp_path / f"{LAB.name}--{scheme}--{content_hash(LAB, scheme)}.json"
        path.write_text(json.dumps({"train_length": 16, "accuracy_by_length": accuracy}))
    svg = figure_for(LAB, tmp_path)
    assert svg is not None and svg.startswith("<svg") and svg.endswith("</svg>")
    assert "learned (× refused)" in svg and "model solution" in svg and "32 (2x)" in svg
    assert svg.count("<polyline") == len(schemes_of(LAB)) - 1  # the learned line is one point
    runs = {"rope": {"train_length": 16, "accuracy_by_length": {"16": 1.0, "32": 0.5}}}
    assert 'cy="16.0"' in accuracy_svg(runs)  # accuracy 1.0 at the top of the plot area
    table = table_for(LAB, tmp_path)  # the text equivalent holds the same numbers
    assert table is not None and "<table>" in table and "refused" in table and "0.80" in table
