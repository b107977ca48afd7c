"""The lab's reference over three seeds: accuracy by position, the mean and the lowest and highest
seed, and the figure's error bars (issue 53, point 6)."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.config import ROOT
from app.content.lab_positions import position_svg, position_table
from app.content.lab_seeds import buckets, by_bucket, summarise
from graders.lab.experiment_reference import SEEDS, seeded_runs, split_scheme, with_seed
from graders.lab.lab_scoring import by_position, lab_spec, right_by_position

LAB = ROOT / "exercises" / "lab-relative-extrapolation"


def test_each_scheme_is_three_runs_the_settings_seed_first() -> None:
    assert SEEDS == 3
    assert seeded_runs(LAB, "rope") == ["rope", "rope@seed=1", "rope@seed=2"]
    assert seeded_runs(LAB, "rope@offset=6")[1:] == ["rope@offset=6,seed=1", "rope@offset=6,seed=2"]
    assert split_scheme(with_seed("rope@offset=6", 2)) == ("rope", {"offset": 6, "seed": 2})


def test_accuracy_by_position_pools_every_sequence_that_reaches_it() -> None:
    spec = lab_spec({"slot": "absolute", "offset": 1, "vocab": 10, "train_length": 4, "seed": 0})
    short = np.array([[1, 2, 3, 4]] * 2)
    long = np.array([[5, 6, 7, 8, 9, 0]] * 2)
    # right everywhere on the short ones; on the long ones, right only at positions 1 and 5
    short_right = right_by_position(spec, short, np.array([[0, 1, 2, 3]] * 2))
    long_right = right_by_position(spec, long, np.array([[0, 5, 0, 0, 0, 9]] * 2))
    assert short_right is not None and long_right is not None
    shares = by_position(spec, [short_right, long_right])
    # position 0 has nothing one place back; 1 is right in all 4; 2 and 3 in the 2 short ones
    assert shares == [None, 1.0, 0.5, 0.5, 0.0, 1.0]
    assert right_by_position(spec, short, np.zeros((2, 4))) is None  # floats are no answer


def _run(seed: int, new24: float, positions: list[float | None]) -> dict[str, Any]:
    return {
        "seed": seed,
        "train_length": 16,
        "accuracy_by_length": {"16": 1.0, "24": 0.5},
        "new_by_length": {"16": None, "24": new24},
        "trained_by_length": {"16": 1.0, "24": 1.0},
        "accuracy_by_position": positions,
        "loss": [2.0, 1.0],
        "cpu_seconds": 4.0,
    }


def test_the_summary_is_the_mean_with_the_lowest_and_highest_seed() -> None:
    runs = [_run(0, 0.2, []), _run(1, 0.3, []), _run(2, 0.25, [])]
    summary = summarise(runs)
    assert summary["seeds"] == [0, 1, 2] and summary["per_seed"] == runs
    assert summary["new_by_length"] == {"16": None, "24": 0.25}
    assert summary["spread"]["new_by_length"] == {"24": [0.2, 0.3]}
    assert summary["cpu_seconds"] == 12.0  # what the three runs cost together
    refused = [_run(k, 0.2, []) for k in range(3)]
    refused[1]["new_by_length"]["24"] = None
    assert summarise(refused)["new_by_length"]["24"] is None  # refused in one seed: no mean


def test_positions_are_grouped_in_buckets_of_four_from_the_first_answerable() -> None:
    assert buckets(10, 3) == [(3, 3), (4, 7), (8, 9)]
    assert buckets(8, 1) == [(1, 3), (4, 7)]
    runs = [_run(k, 0.2, [None, 0.5 + k / 10, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0]) for k in range(3)]
    got = by_bucket(runs, 8, 1)
    assert got[0][:2] == (1, 3) and got[1] == (4, 7, (0.0, 0.0, 0.0))
    mean, low, high = got[0][2] or (0, 0, 0)
    assert (round(low, 4), round(mean, 4), round(high, 4)) == (0.5, 0.5333, 0.5667)
    short = [_run(0, 0.2, [None, 1.0, 1.0])]  # a run refused past position 2: no bucket 4-7
    assert by_bucket(short, 8, 1)[1] == (4, 7, None)


def test_the_position_figure_draws_a_bar_per_bucket_and_the_table_says_so() -> None:
    shares: list[float | None] = [None, None, None, *([0.9] * 13), *([0.3] * 16)]
    runs = {"sinusoidal": summarise([_run(k, 0.2, shares) for k in range(3)])}
    for run in runs.values():  # the figure spans the longest length the runs measured
        run["accuracy_by_length"] = {"16": 1.0, "32": 0.6}
    svg = position_svg(runs, 3, 0.1)
    assert svg.startswith("<svg") and svg.count('class="error-bar"') == 8  # positions 3 to 31
    assert "new positions from 16" in svg and "mean of 3 seeds" in svg
    table = position_table(runs, 3)
    assert '<th scope="col">3–3</th>' in table and "30% [30–30]" in table


def _fake_runs(monkeypatch: Any, solution_differs: bool) -> tuple[list[str], list[int]]:
    """load_or_run replaced: records the runs asked for and the most that ran at once."""
    import threading
    import time

    import app.content.lab as lab

    running, most, lock, asked = [0], [0], threading.Lock(), []

    def fake(folder: Any, run: str, cache_dir: Any) -> dict[str, Any]:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            asked.append(run)
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        seed = int(run.partition("seed=")[2] or 0)
        own = 0.05 if solution_differs and run.startswith("reference") else 0.0
        return _run(seed, 0.2 + seed / 10 + own, [])

    monkeypatch.setattr(lab, "load_or_run", fake)
    return asked, most


def test_missing_runs_are_trained_side_by_side_and_summarised(monkeypatch: Any) -> None:
    from app.content.lab import reference_runs

    asked, most = _fake_runs(monkeypatch, solution_differs=False)
    results = reference_runs(LAB, None, workers=2)
    assert most[0] == 2  # two at a time
    # every seed of every scheme once; the model solution repeats the first scheme's first run,
    # so that scheme's other seeds stand for its own
    assert len(asked) == 3 * len(results) - 2 and "reference@seed=1" not in asked
    assert results["reference"]["new_by_length"] == results["none"]["new_by_length"]
    assert results["rope@offset=6"]["seeds"] == [0, 1, 2]
    assert results["rope"]["spread"]["new_by_length"]["24"] == [0.2, 0.4]


def test_a_model_solution_of_its_own_is_trained_with_every_seed(monkeypatch: Any) -> None:
    from app.content.lab import reference_runs

    asked, _ = _fake_runs(monkeypatch, solution_differs=True)
    results = reference_runs(LAB, None, workers=2)
    assert len(asked) == 3 * len(results) and "reference@seed=2" in asked
    assert results["reference"]["spread"]["new_by_length"]["24"] == [0.25, 0.45]


def test_the_figure_reads_a_twin_solution_without_seeds_of_its_own(tmp_path: Any) -> None:
    import json

    from app.content.lab_figure import cached_runs
    from graders.lab.experiment_reference import content_hash, seeded_names

    def write(name: str, run: dict[str, Any]) -> None:
        path = tmp_path / f"{LAB.name}--{name}--{content_hash(LAB, name)}.json"
        path.write_text(json.dumps(run))

    for scheme, name in seeded_names(LAB):
        seed = int(name.partition("seed=")[2] or 0)
        rank = 0.0 if scheme in ("rope", "reference") else len(scheme) / 100
        if scheme != "reference" or seed == 0:  # the solution's later seeds were never trained
            write(name, _run(seed, 0.2 + seed / 10 + rank, []))
    runs = cached_runs(LAB, tmp_path)
    assert runs is not None and "rope+reference" in runs and "reference" not in runs
    assert len(runs["rope+reference"]["per_seed"]) == 3
    write("reference", _run(0, 0.9, []))  # now a solution of its own: its seeds are needed
    assert cached_runs(LAB, tmp_path) is None
