"""Trusted reference for alibi-bias (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def alibi_bias(num_heads: float, T: float) -> np.ndarray:
    """Return the causal (H, T, T) ALiBi bias: -m_h * (i - j) for j <= i, -inf above."""
    heads, seq_len = int(num_heads), int(T)
    if heads != num_heads or seq_len != T:
        raise ValueError("num_heads and T must be whole numbers")
    if heads < 1 or seq_len < 1:
        raise ValueError("num_heads and T must be at least 1")
    slopes = np.power(2.0, -8.0 * np.arange(1, heads + 1, dtype=np.float64) / heads)  # (H,)
    pos = np.arange(seq_len, dtype=np.float64)
    distance = pos[:, None] - pos[None, :]  # (T, T): i - j
    bias = -slopes[:, None, None] * distance[None, :, :]
    return np.where(distance[None] >= 0, bias, -np.inf)
