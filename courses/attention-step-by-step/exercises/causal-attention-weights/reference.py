"""Trusted reference for causal-attention-weights (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def causal_attention_weights(scores: np.ndarray) -> np.ndarray:
    """Softmax over the keys of (..., T, T) scores, with key j hidden from query i when j > i."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim < 2 or scores.shape[-1] != scores.shape[-2]:
        raise ValueError("scores must end in two equal axes (queries, keys)")
    t = scores.shape[-1]
    allowed = np.tril(np.ones((t, t), dtype=bool))  # allowed[i, j] is j <= i
    masked = np.where(allowed, scores, -np.inf)
    masked -= masked.max(axis=-1, keepdims=True)  # the diagonal is always allowed: finite
    weights = np.exp(masked)  # exp(-inf) = 0: no weight on future keys
    return weights / weights.sum(axis=-1, keepdims=True)
