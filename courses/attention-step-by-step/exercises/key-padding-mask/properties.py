"""Defining properties of masked attention weights, checked on the cases that name them.

A property function takes a case's inputs and the student's output (a float64 NumPy array of
the expected shape) and returns one sentence explaining how the output breaks the property,
or None when it holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ZERO = 1e-6  # a hidden key's weight: exp(-inf) = 0, and exp(-1e9) is 0 in float32 too
SUM_GAP = 1e-3


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def _why_hidden(inputs: dict[str, Any], b: int, i: int, j: int) -> str:
    length = int(np.asarray(inputs["lengths"])[b])
    if j >= length:
        return f"key {j} is padding (sequence {b} has {length} real tokens)"
    return f"key {j} comes after query {i} and the mask is causal"


def hidden_keys_get_zero_weight(inputs: dict[str, Any], output: np.ndarray) -> str | None:
    """Every padding key (j >= lengths[b]), and every future key (j > i) when causal, must get
    a weight of exactly 0."""
    if output.ndim != 4 or not np.isfinite(output).all():
        return None
    b_size, _, t_q, t_k = output.shape
    lengths = np.asarray(inputs["lengths"]).reshape(-1)
    key = np.arange(t_k)
    hidden = key[None, :] >= lengths[:, None]  # (B, Tk)
    hidden = np.broadcast_to(hidden[:, None, None, :], output.shape)
    if inputs.get("causal"):
        hidden = hidden | (key[None, :] > np.arange(t_q)[:, None])
    bad = hidden & (np.abs(output) > ZERO)
    if not bad.any() or b_size != lengths.size:
        return None
    b, h, i, j = (int(n) for n in np.argwhere(bad)[0])
    return (
        f"weights[{b}, {h}, {i}, {j}] = {_fmt(output[b, h, i, j])}, but "
        f"{_why_hidden(inputs, b, i, j)}: a hidden key must get exactly 0. Set its score to "
        "-inf before the softmax (the mask hides keys, the last axis, not queries)."
    )


def rows_sum_to_one(inputs: dict[str, Any], output: np.ndarray) -> str | None:
    """Each query's weights are a softmax over the keys left visible: they sum to 1."""
    if output.ndim != 4 or not np.isfinite(output).all():
        return None
    sums = output.sum(axis=-1)
    bad = np.abs(sums - 1.0) > SUM_GAP
    if not bad.any():
        return None
    b, h, i = (int(n) for n in np.argwhere(bad)[0])
    return (
        f"The weights of query {i} (sequence {b}, head {h}) sum to {_fmt(sums[b, h, i])}, not 1. "
        "Mask the scores before the softmax, so that it shares the whole unit of weight among "
        "the visible keys; zeroing weights after it leaves less than 1."
    )
