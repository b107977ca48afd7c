"""Trusted reference for rope-attention-scores (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def _rotate(x: np.ndarray) -> np.ndarray:
    """Turn pair (2i, 2i+1) of row t by the angle t * 10000^(-2i/d) (interleaved layout)."""
    seq_len, d = x.shape
    theta = np.power(10000.0, -np.arange(0, d, 2, dtype=np.float64) / d)  # (d/2,)
    angles = np.arange(seq_len, dtype=np.float64)[:, None] * theta[None, :]  # (T, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


def rope_attention_scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """s[m, n] = <R_m q_m, R_n k_n> / sqrt(d) for queries and keys of shape (T, d)."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    if q.ndim != 2 or q.shape != k.shape or q.shape[-1] < 2 or q.shape[-1] % 2:
        raise ValueError("q and k must both have shape (T, d) with d a positive even number")
    d = q.shape[-1]
    return _rotate(q) @ _rotate(k).T / np.sqrt(d)
