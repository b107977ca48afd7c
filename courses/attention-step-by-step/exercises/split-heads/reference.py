"""Trusted reference for split-heads (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def split_heads(x: np.ndarray, num_heads: int) -> np.ndarray:
    """(B, T, d_model) -> (B, H, T, d_head), head h taking features h*d_head .. (h+1)*d_head - 1."""
    x = np.asarray(x, dtype=np.float64)
    batch, seq, d_model = x.shape
    heads = int(num_heads)
    if heads < 1 or d_model % heads:
        raise ValueError("num_heads must divide d_model")
    out = np.empty((batch, heads, seq, d_model // heads))
    for h in range(heads):  # written slice by slice, the way the statement defines it
        out[:, h] = x[:, :, h * (d_model // heads) : (h + 1) * (d_model // heads)]
    return out
