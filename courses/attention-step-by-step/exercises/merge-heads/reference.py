"""Trusted reference for merge-heads (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(B, H, T, d_head) -> (B, T, H * d_head): the heads' outputs side by side, head 0 first."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 4:
        raise ValueError("x must be (B, H, T, d_head)")
    return np.concatenate([x[:, h] for h in range(x.shape[1])], axis=-1)
