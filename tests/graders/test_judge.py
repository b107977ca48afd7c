"""Reports must survive strict JSON: previews of outputs with NaN or infinities included."""

from __future__ import annotations

import json

import numpy as np

from graders.judge import _preview


def test_preview_turns_non_finite_values_into_null() -> None:
    array = np.array([[0.0, -np.inf], [np.nan, 2.5]], dtype=np.float32)
    preview = _preview(array)
    assert preview == [[0.0, None], [None, 2.5]]
    assert json.loads(json.dumps(preview, allow_nan=False)) == preview


def test_preview_keeps_the_first_matrix_of_a_3d_output() -> None:
    array = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    assert _preview(array) == np.arange(12).reshape(3, 4).tolist()


def test_preview_skips_scalars_empty_and_huge_outputs() -> None:
    assert _preview(np.float32(3.0).reshape(())) is None
    assert _preview(np.zeros((0, 4))) is None
    assert _preview(np.zeros((100, 100))) is None
