"""Defining property of ALiBi scores, checked on the cases that name it (trusted code).

A property function takes a case's inputs and the student's output (a float64 NumPy array of
the expected shape) and returns one sentence explaining how the output breaks the property,
or None when it holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def _mask_problem(out: np.ndarray) -> str | None:
    _, size, _ = out.shape
    future = np.triu(np.ones((size, size), dtype=bool), k=1)
    bad = np.argwhere(future[None] & ~np.isneginf(out))
    if bad.size:
        h, i, j = (int(v) for v in bad[0])
        return (
            f"Your scores for future keys are not -inf: s[{h}, {i}, {j}] = "
            f"{_fmt(out[h, i, j])}, though key {j} comes after query {i}. ALiBi is causal: "
            "every entry with j > i must be -inf."
        )
    bad = np.argwhere(~future[None] & ~np.isfinite(out))
    if bad.size:
        h, i, j = (int(v) for v in bad[0])
        return (
            f"Your score s[{h}, {i}, {j}] is {_fmt(out[h, i, j])}, though key {j} is not after "
            f"query {i}: only keys with j > i are masked."
        )
    return None


def penalty_grows_linearly(inputs: dict[str, Any], output: np.ndarray) -> str | None:
    """With zero queries or keys, or one query and one key vector per head repeated at every
    position, q.k / sqrt(d) is the same for every pair in a head, so moving one key further
    back must lower the score by the same amount everywhere in that head: its slope m_h."""
    if output.ndim != 3 or output.shape[1] != output.shape[2]:
        return None
    heads, size, _ = output.shape
    mask = _mask_problem(output)
    if mask is not None or size < 3:
        return mask
    finite = output[np.isfinite(output)]
    tol = 2e-4 + 1e-4 * float(np.abs(finite).max(initial=0.0))
    i, j = np.nonzero(np.tril(np.ones((size - 1, size - 1), dtype=bool)))
    i = i + 1  # pairs (i, j) with j + 1 <= i: a key j and the key right after it, j + 1
    for h in range(heads):
        steps = output[h, i, j + 1] - output[h, i, j]  # what one step further back costs
        at = int(np.argmax(np.abs(steps - steps[0])))
        if abs(steps[at] - steps[0]) > tol:
            return (
                "Your penalty does not grow linearly with distance: in head "
                f"{h}, moving query {i[0]}'s key one step back (from {j[0] + 1} to {j[0]}) "
                f"lowers the score by {_fmt(steps[0])}, but for query {i[at]} (from key "
                f"{j[at] + 1} to {j[at]}) by {_fmt(steps[at])}. In this test q.k is the same "
                "for every pair of a head, so with ALiBi every step back must cost the same "
                "amount, the head's slope m_h."
            )
        slope = 2.0 ** (-8.0 * (h + 1) / heads)
        if steps[0] < -tol:
            return (
                f"Your scores grow with distance: in head {h}, each step back raises the score "
                f"by {_fmt(-steps[0])}. ALiBi subtracts m_h (i - j), so keys further back "
                "must score lower."
            )
        if abs(steps[0] - slope) > tol:
            return (
                f"Your penalty grows linearly, but in head {h} each step back costs "
                f"{_fmt(steps[0])} instead of the slope m_{h} = 2^(-8 * {h + 1} / {heads}) = "
                f"{_fmt(slope)}."
            )
    return None
