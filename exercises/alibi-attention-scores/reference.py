"""Trusted reference for alibi-attention-scores (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def alibi_attention_scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Causal (H, T, T) scores q.k / sqrt(d) - m_h * (i - j) for j <= i, -inf above."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    if q.ndim != 3 or q.shape != k.shape or q.shape[0] < 1 or q.shape[-1] < 1:
        raise ValueError("q and k must both have shape (H, T, d)")
    heads, seq_len, d = q.shape
    slopes = np.power(2.0, -8.0 * np.arange(1, heads + 1, dtype=np.float64) / heads)  # (H,)
    pos = np.arange(seq_len, dtype=np.float64)
    distance = pos[:, None] - pos[None, :]  # (T, T): i - j
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d) - slopes[:, None, None] * distance
    return np.where(distance[None] >= 0, scores, -np.inf)
