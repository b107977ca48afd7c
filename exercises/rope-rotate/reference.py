"""Trusted reference for rope-rotate (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def rope_rotate(x: np.ndarray) -> np.ndarray:
    """Rotate each interleaved pair (2i, 2i+1) of token t by the angle t * 10000^(-2i/d)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 3 or x.shape[-1] < 2 or x.shape[-1] % 2:
        raise ValueError("x must have shape (N, T, d) with d a positive even number")
    _, seq_len, d = x.shape
    theta = np.power(10000.0, -np.arange(0, d, 2, dtype=np.float64) / d)  # (d/2,)
    angles = np.arange(seq_len, dtype=np.float64)[:, None] * theta[None, :]  # (T, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]  # (N, T, d/2) each
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out
