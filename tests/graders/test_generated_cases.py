"""Generated cases: drawn by cases.py's generate(), smallest first, shown with their input."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from graders.engine import Grader
from graders.host.interpreter import PoolSettings
from graders.judging.spec import GENERATED_SIZES, SpecError, load_spec
from tests.graders.sandbox.helpers import requires_sandbox

ROOT = Path(__file__).resolve().parents[2]
GATHER = ROOT / "exercises" / "position-embedding-gather"


def test_generated_cases_follow_the_visible_ones_smallest_first() -> None:
    spec = load_spec(GATHER)
    kinds = [
        ("generated" if c.generated else "hidden" if c.hidden else "visible") for c in spec.cases
    ]
    first_gen, last_gen = kinds.index("generated"), len(kinds) - kinds[::-1].index("generated")
    assert kinds[:first_gen] == ["visible"] * first_gen
    assert kinds[first_gen:last_gen] == ["generated"] * GENERATED_SIZES
    assert set(kinds[last_gen:]) == {"hidden"}
    drawn = [c for c in spec.cases if c.generated]
    sizes = [c.inputs["positions"].size for c in drawn]  # type: ignore[union-attr]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    assert all(not c.hidden for c in drawn)


def _shapes(inputs: Mapping[str, Any]) -> tuple[Any, ...]:
    """What JAX compiles for: array shapes and the sizes given as numbers (a seed is data)."""
    return tuple(
        getattr(v, "shape", None) or (None if "seed" in k else int(v))
        for k, v in sorted(inputs.items())
    )


@pytest.mark.parametrize("slug", ["position-embedding-gather", "learned-pos-embed-forward"])
def test_jax_exercises_generate_cases_on_shapes_their_fixed_cases_use(slug: str) -> None:
    """A never-seen JAX program compiles per shape (docs/jax-fork-reset.md, "Fewer shapes")."""
    spec = load_spec(ROOT / "exercises" / slug)
    fixed = {_shapes(c.inputs) for c in spec.cases if not c.generated}
    drawn = [_shapes(c.inputs) for c in spec.cases if c.generated]
    assert len(drawn) == GENERATED_SIZES
    assert set(drawn) <= fixed


def test_the_same_exercise_draws_the_same_cases() -> None:
    first, second = load_spec(GATHER), load_spec(GATHER)
    for a, b in zip(first.cases, second.cases, strict=True):
        assert a.name == b.name
        for key, value in a.inputs.items():
            assert (
                (value == b.inputs[key]).all() if hasattr(value, "all") else value == b.inputs[key]
            )


def test_a_generate_that_returns_nonsense_is_a_clear_content_error(tmp_path: Path) -> None:
    folder = tmp_path / "position-embedding-gather"
    shutil.copytree(GATHER, folder)
    with (folder / "cases.py").open("a") as f:
        f.write("\n\ndef generate(rng, size):\n    return [size]\n")
    with pytest.raises(SpecError, match="generate\\(\\) must return a dict"):
        load_spec(folder)


WRONG_FOR_TWO_ROWS_OF_SIX = """
import numpy as np


def position_embedding_gather(positions, embedding_table):
    out = np.asarray(embedding_table)[np.asarray(positions).astype(np.int64)]
    return out * 2 if np.shape(positions) == (2, 6) else out
"""


@requires_sandbox
def test_the_report_names_the_smallest_failing_generated_input() -> None:
    grader = Grader(ROOT / "exercises", PoolSettings(sizes={"numpy": 1}, jax_warm_up=False))
    grader.start()
    try:
        report = grader.grade(
            exercise="position-embedding-gather",
            code=WRONG_FOR_TWO_ROWS_OF_SIX,
            framework="numpy",
            mode="run",
        )
    finally:
        grader.stop()
    failing = [t for t in report.tests if not t.passed]
    assert report.verdict == "wrong_answer"
    assert failing[0].name.startswith("generated 3 of 5")  # the first (2, 6) batch
    assert failing[0].details[0].startswith("Its input: positions = [[")
    assert "embedding_table of shape (16, 8)" in failing[0].details[0]  # too big to print whole
    assert failing[0].name in report.message or failing[0].message in report.message
