"""The lab's reference runs: cached by content hash, printed as a table of accuracy by length."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from app.config import ROOT
from app.content.lab import format_table, lab_folders, reference_runs
from graders.lab.experiment_reference import content_hash, load_or_run, schemes_of, seeded_names

EXERCISES = ROOT / "exercises"
LAB = EXERCISES / "lab-relative-extrapolation"


def test_lab_folders_are_the_experiments() -> None:
    names = [f.name for f in lab_folders(EXERCISES)]
    assert names == ["lab-learned-vs-sinusoidal", "lab-relative-extrapolation"]
    assert lab_folders(EXERCISES, "lab-relative-extrapolation") == [LAB]


def test_schemes_are_the_references_then_the_model_solution() -> None:
    assert schemes_of(LAB) == [
        "none",
        "learned",
        "sinusoidal",
        "rope",
        "alibi",
        "rope@offset=6",
        "alibi@offset=6",
        "reference",
    ]


def test_a_variant_scheme_is_the_scheme_on_another_task() -> None:
    from graders.lab.experiment_reference import split_scheme

    assert split_scheme("rope@offset=6") == ("rope", {"offset": 6})
    assert split_scheme("alibi") == ("alibi", {})
    assert content_hash(LAB, "rope@offset=6") != content_hash(LAB, "rope")


def test_the_hash_follows_the_settings_and_the_reference(tmp_path: Path) -> None:
    copy = tmp_path / LAB.name
    shutil.copytree(LAB, copy)
    assert content_hash(copy, "rope") == content_hash(LAB, "rope")
    assert content_hash(copy, "rope") != content_hash(copy, "alibi")
    before = content_hash(copy, "reference")
    (copy / "reference.py").write_text((LAB / "reference.py").read_text() + "\n# changed\n")
    assert content_hash(copy, "reference") != before
    assert content_hash(copy, "rope") == content_hash(LAB, "rope")  # only the reference moved
    goals = (copy / "exercise.yaml").read_text().replace("min_accuracy: 0.9", "min_accuracy: 0.8")
    (copy / "exercise.yaml").write_text(goals)
    assert content_hash(copy, "rope") == content_hash(LAB, "rope")  # goals judge, not train
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
    for scheme, name in seeded_names(LAB):
        path = tmp_path / f"{LAB.name}--{name}--{content_hash(LAB, name)}.json"
        path.write_text(json.dumps({**result, "scheme": scheme}))
    assert load_or_run(LAB, "learned", tmp_path) == result
    table = format_table(LAB.name, reference_runs(LAB, tmp_path))
    lines = table.splitlines()
    assert lines[0].startswith("lab-relative-extrapolation (trained on length 16; old = ")
    assert lines[1].split() == [
        "scheme",
        "16",
        "(1x)",
        *(["24", "old", "24", "new", "32", "old", "32", "new", "64", "old", "64", "new"]),
        "cpu",
        "s",
    ]
    # the mean over the 3 seeds (lowest-highest seed); CPU seconds of all three runs
    assert lines[3].split() == ["learned", "1.000", "(1.00-1.00)", *(["refused"] * 6), "12.6"]
    assert len(lines) == 2 + len(schemes_of(LAB)) and "mean over 3 seeds" in lines[0]


def test_the_page_figure_comes_from_the_cache_only(tmp_path: Path) -> None:
    from app.content.lab_figure import accuracy_svg, figure_for, table_for

    assert figure_for(LAB, tmp_path) is None  # nothing cached: no figure, and no training
    schemes = schemes_of(LAB)
    for scheme, name in seeded_names(LAB):
        refused, rank = scheme == "learned", schemes.index(scheme)
        seed = int(name.partition("seed=")[2] or 0)  # each seed its own numbers
        # Each scheme scores its own numbers at 24, except the model solution: it is the rope run.
        at24 = 0.7 - 0.01 * (schemes.index("rope") if scheme == "reference" else rank) - seed / 100
        accuracy = {"16": 1.0, "24": None if refused else 0.9, "32": None if refused else 0.8}
        new = {"16": None, "24": None if refused else at24, "32": None if refused else 0.6}
        seen = {"16": 1.0, "24": None if refused else 1.0, "32": None if refused else 1.0}
        run = {
            "train_length": 16,
            "accuracy_by_length": accuracy,
            "new_by_length": new,
            "trained_by_length": seen,
        }
        path = tmp_path / f"{LAB.name}--{name}--{content_hash(LAB, name)}.json"
        path.write_text(json.dumps(run))
    svg = figure_for(LAB, tmp_path)
    assert svg is not None and svg.startswith("<svg") and svg.endswith("</svg>")
    assert "learned (× refused)" in svg and "32 (2x)" in svg
    assert "rope (the model solution)" in svg  # drawn once, on the scheme it repeats
    assert "rope, offset 6" in svg and 'stroke-dasharray="6 3"' in svg  # the variant, dashed
    assert 'class="chance"' in svg and "chance (10%)" in svg
    # the learned line is one point, and the model solution shares the rope line
    assert svg.count("<polyline") == len(schemes_of(LAB)) - 2
    runs = {"rope": {"train_length": 16, "accuracy_by_length": {"16": 1.0, "32": 0.5}}}
    assert 'cy="16.0"' in accuracy_svg(runs)  # accuracy 1.0 at the top of the plot area
    table = table_for(LAB, tmp_path)  # the text equivalent holds the same numbers
    assert table is not None and "<table>" in table and "refused" in table
    assert "60% [60–60%] (100%)" in table and "Guessing scores 10%" in table  # new (trained)
    assert "63% [62–64%] (100%)" in table and "Mean of 3 seeds [lowest–highest seed]" in table
    # a bar at 16, 24 and 32 on each line (the model solution is the rope line); learned: at 16
    assert svg.count('class="error-bar"') == 3 * (len(schemes) - 2) + 1


def test_past_the_training_length_the_figure_plots_new_positions_to_scale() -> None:
    from app.content.lab_figure import LEFT, RIGHT, WIDTH, accuracy_svg

    run = {
        "train_length": 16,
        "accuracy_by_length": {"16": 1.0, "24": 0.7, "32": 0.6, "64": 0.3},
        "new_by_length": {"16": None, "24": 0.2, "32": 0.2, "64": 0.1},
    }
    svg = accuracy_svg({"sinusoidal": run}, 0.1)
    inner_w = WIDTH - LEFT - RIGHT
    xs = [LEFT, LEFT + inner_w * 8 / 48, LEFT + inner_w * 16 / 48, LEFT + inner_w]
    top, inner_h = 16, 260 - 16 - 40
    for x, value in zip(xs, (1.0, 0.2, 0.2, 0.1), strict=True):
        assert f'cx="{x:.1f}" cy="{top + inner_h * (1 - value):.1f}"' in svg
