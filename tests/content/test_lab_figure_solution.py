"""The lab figure draws the model solution once: when it is one of the schemes, that line says so
(review 4, n5: lab 1's solution is the sinusoidal run, lab 2's the rope run)."""

from __future__ import annotations

from typing import Any

from app.content.lab_figure import accuracy_svg, accuracy_table, colour, label, merge_model_solution


def _run(new24: float) -> dict[str, Any]:
    return {
        "train_length": 16,
        "accuracy_by_length": {"16": 1.0, "24": 0.5 + new24 / 2},
        "new_by_length": {"16": None, "24": new24},
        "trained_by_length": {"16": 1.0, "24": 1.0},
    }


def test_a_solution_with_a_twin_scheme_is_one_labelled_line() -> None:
    runs = {"none": _run(0.2), "sinusoidal": _run(0.23), "reference": _run(0.23)}
    merged = merge_model_solution(runs)
    assert list(merged) == ["none", "sinusoidal+reference"]
    assert label("sinusoidal+reference") == "sinusoidal (the model solution)"
    assert colour("sinusoidal+reference") == colour("sinusoidal")
    svg = accuracy_svg(merged, 0.1)
    assert svg.count("<polyline") == 2 and "sinusoidal (the model solution)" in svg
    table = accuracy_table(merged, 0.1)
    assert table.count('<th scope="row">') == 2


def test_a_solution_of_its_own_keeps_its_own_line() -> None:
    runs = {"sinusoidal": _run(0.23), "reference": _run(0.4)}
    assert merge_model_solution(runs) == runs
    assert label("reference") == "model solution"
