"""The automatic wrong variants do the wrong thing each claims (run here on a NumPy solution)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from app.content.variants import VARIANTS, variants

SOLUTION = """
import numpy as np


def gather(positions, table):
    return table[positions.astype(np.int64)]
"""
TABLE = np.arange(24, dtype=np.float32).reshape(6, 4) / 7
POSITIONS = np.array([[0, 1, 2], [3, 4, 5]], dtype=np.float32)
RIGHT = TABLE[POSITIONS.astype(np.int64)]


def _run(name: str) -> np.ndarray:
    (variant,) = [
        v for v in variants(solution=SOLUTION, entry="gather", kind="function") if v.name == name
    ]
    module = types.ModuleType("variant")
    exec(compile(variant.code, "variant.py", "exec"), module.__dict__)
    return np.asarray(module.gather(POSITIONS, TABLE))


EXPECTED = {
    "zeros": np.zeros_like(RIGHT),
    "input-unchanged": POSITIONS,
    "transposed": np.swapaxes(RIGHT, -1, -2),
    "first-row-broadcast": np.broadcast_to(RIGHT[:, :1, :], RIGHT.shape),
    "positions-off-by-one": np.roll(RIGHT, 1, axis=1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_variant_spoils_the_answer_as_it_says(name: str) -> None:
    got = _run(name)
    np.testing.assert_array_equal(got, EXPECTED[name])
    assert got.shape != RIGHT.shape or not np.array_equal(got, RIGHT)


def test_float16_loses_precision_but_keeps_the_dtype() -> None:
    got = _run("float16")
    assert got.dtype == RIGHT.dtype and not np.array_equal(got, RIGHT)
    np.testing.assert_allclose(got, RIGHT, rtol=1e-3)


def test_a_variant_that_cannot_apply_raises_instead_of_passing_for_right() -> None:
    flat = "def flat(n):\n    import numpy as np\n    return np.arange(n, dtype=np.float32)\n"
    (variant,) = [
        v for v in variants(solution=flat, entry="flat", kind="function") if v.name == "transposed"
    ]
    module = types.ModuleType("variant")
    exec(compile(variant.code, "variant.py", "exec"), module.__dict__)
    with pytest.raises(ValueError, match="not applicable"):
        module.flat(4)


def test_every_variant_is_described_and_class_exercises_get_one_more() -> None:
    function = variants(solution=SOLUTION, entry="gather", kind="function")
    assert [v.name for v in function] == list(VARIANTS)
    assert all(v.description for v in function)
    klass = variants(solution="class M:\n    pass\n", entry="M", kind="class")
    assert [v.name for v in klass][-1] == "zero-table-identity"
