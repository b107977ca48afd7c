"""Defining property of RoPE scores, checked on the cases that name it (trusted code).

A property function takes a case's inputs and the student's output (a float64 NumPy array of
the expected shape) and returns one sentence explaining how the output breaks the property,
or None when it holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def scores_depend_only_on_offset(inputs: dict[str, Any], output: np.ndarray) -> str | None:
    """With the same query at every position and the same key at every position, every
    diagonal (fixed m - n) of the score matrix must hold a single value."""
    if output.ndim != 2 or output.shape[0] != output.shape[1] or not np.isfinite(output).all():
        return None
    size = output.shape[0]
    scale = 1.0 + float(np.abs(output).max(initial=0.0))
    worst: tuple[float, int, int, int] | None = None  # (gap, offset, m, m2)
    for offset in range(-(size - 1), size):  # offset = m - n
        rows = np.arange(max(offset, 0), min(size, size + offset))  # m with 0 <= m - offset < T
        if rows.size < 2:
            continue
        values = output[rows, rows - offset]
        gaps = np.abs(values - values[0])
        at = int(np.argmax(gaps))
        if gaps[at] > 1e-3 * scale and (worst is None or gaps[at] > worst[0]):
            worst = (float(gaps[at]), offset, int(rows[0]), int(rows[at]))
    if worst is None:
        return None
    _, offset, m1, m2 = worst
    n1, n2 = m1 - offset, m2 - offset
    return (
        f"Your scores change along a diagonal: s[{m1}, {n1}] = {_fmt(output[m1, n1])} but "
        f"s[{m2}, {n2}] = {_fmt(output[m2, n2])}, though both have offset m - n = {offset} and "
        "this test puts the same query at every position and the same key at every position. "
        "With RoPE a score may depend only on the offset m - n: rotate both q and k, each by "
        "its own position, in the same direction."
    )
