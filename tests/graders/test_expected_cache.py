"""Expected outputs are kept on disk, so a new grading process does not start a framework."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graders.judging import spec as spec_module
from graders.judging.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
GATHER = ROOT / "exercises" / "position-embedding-gather"


def test_a_second_process_reads_what_the_first_computed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_spec(GATHER)
    first.cache_dir = tmp_path
    computed = first.expected()
    assert len(list(tmp_path.glob("position-embedding-gather-*-expected.npz"))) == 1

    def no_reference(_spec: object) -> None:
        raise AssertionError("the reference ran again")

    monkeypatch.setattr(spec_module, "_run_reference", no_reference)
    second = load_spec(GATHER)
    second.cache_dir = tmp_path
    loaded = second.expected()
    assert sorted(loaded) == sorted(computed)
    for index, value in computed.items():
        np.testing.assert_array_equal(loaded[index], value)


def test_a_corrupt_or_changed_cache_is_computed_again(tmp_path: Path) -> None:
    spec = load_spec(GATHER)
    spec.cache_dir = tmp_path
    spec.expected()
    (path,) = tmp_path.glob("*-expected.npz")
    path.write_bytes(b"not a zip file")
    again = load_spec(GATHER)
    again.cache_dir = tmp_path
    assert len(again.expected()) == len([c for c in again.cases if not c.expect_error])
    assert path.read_bytes()[:2] == b"PK"  # rewritten whole


def test_the_key_changes_with_the_exercise_files(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "position-embedding-gather"
    shutil.copytree(GATHER, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = spec_module.content_key(copy)
    assert spec_module.content_key(copy) == before
    with (copy / "cases.py").open("a") as handle:
        handle.write("\n# a changed case file\n")
    assert spec_module.content_key(copy) != before
