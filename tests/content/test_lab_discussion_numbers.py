"""Lab 1's discussion quotes the reference runs the current code writes to the cache (review 4, E1).

The runs come from `python -m app experiments` (or `app prepare`); the cache file names are the
content hash of the lab's code, so a stale quotation shows up here as soon as the code changes.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.config import ROOT, get_settings
from graders.lab.experiment_reference import cached, schemes_of

LAB = ROOT / "exercises" / "lab-learned-vs-sinusoidal"
OFFSET, TRAIN = 3, 16  # the lab's task: the token 3 places back, trained on length 16
LENGTHS = ("24", "32", "64")


def _pct(value: float) -> int:
    return round(100 * value)


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, Any]]:
    cache_dir = get_settings().experiments_cache_path
    found = {scheme: cached(LAB, scheme, cache_dir) for scheme in schemes_of(LAB)}
    missing = [scheme for scheme, run in found.items() if run is None]
    if missing:
        pytest.skip(f"no cached reference runs for {missing}: run `python -m app experiments`")
    return {scheme: run for scheme, run in found.items() if run is not None}


def _text() -> str:
    return " ".join((LAB / "discussion.md").read_text(encoding="utf-8").split())


def test_the_sinusoid_numbers_are_the_cached_ones(runs: dict[str, dict[str, Any]]) -> None:
    sine = runs["sinusoidal"]
    new = [_pct(sine["new_by_length"][n]) for n in LENGTHS]
    whole = [_pct(sine["accuracy_by_length"][n]) for n in LENGTHS]
    text = _text()
    said_new = re.search(r"right (\d+)% of the time at 24, (\d+)% at 32 and (\d+)% at 64", text)
    said_whole = re.search(r"whole sequences the same run scores (\d+)%, (\d+)% and (\d+)%", text)
    assert said_new and [int(g) for g in said_new.groups()] == new
    assert said_whole and [int(g) for g in said_whole.groups()] == whole


def test_the_share_of_familiar_positions_is_counted_right() -> None:
    text = _text()
    for length in LENGTHS:
        answerable, familiar = int(length) - OFFSET, TRAIN - OFFSET
        assert f"{familiar} of {answerable} at {length}" in text


def test_every_percentage_in_the_discussion_is_a_cached_number(
    runs: dict[str, dict[str, Any]],
) -> None:
    known = {10}  # chance: one of 10 tokens
    for run in runs.values():
        for key in ("accuracy_by_length", "new_by_length", "trained_by_length"):
            known |= {_pct(v) for v in (run.get(key) or {}).values() if v is not None}
    quoted = {int(p) for p in re.findall(r"(\d+)%", _text())}
    assert quoted and quoted <= known, sorted(quoted - known)


def test_the_goal_comment_quotes_the_cached_reference(runs: dict[str, dict[str, Any]]) -> None:
    yaml_text = " ".join((LAB / "exercise.yaml").read_text(encoding="utf-8").split())
    said = re.search(r"reference sinusoidal run scores (\d+)% and (\d+)% there", yaml_text)
    sine = runs["sinusoidal"]["new_by_length"]
    assert said and [int(g) for g in said.groups()] == [_pct(sine["24"]), _pct(sine["32"])]


def test_lesson_seven_quotes_lab_two_as_cached() -> None:
    lab = ROOT / "exercises" / "lab-relative-extrapolation"
    cache_dir = get_settings().experiments_cache_path
    found = {scheme: cached(lab, scheme, cache_dir) for scheme in ("rope", "none", "sinusoidal")}
    if any(run is None for run in found.values()):
        pytest.skip("no cached lab 2 runs: run `python -m app experiments`")
    rope, none, sine = (run["new_by_length"] for run in found.values() if run is not None)
    text = " ".join((ROOT / "lessons" / "07-beyond-absolute.md").read_text("utf-8").split())
    said = re.search(
        r"right on ([\d.]+)% of the new positions at 24 and 32, but on only (\d+)% at 64", text
    )
    assert said is not None
    assert float(said.group(1)) == round(100 * rope["24"], 1) == round(100 * rope["32"], 1)
    assert int(said.group(2)) == _pct(rope["64"])
    assert f"({_pct(none['32'])}% against {_pct(sine['32'])}% at 32)" in text
