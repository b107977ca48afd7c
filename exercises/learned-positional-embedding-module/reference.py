"""Trusted reference for learned-positional-embedding-module (plain NumPy, float64).

The grader sets the submission's single trainable parameter to the case's `table` before
calling forward, and passes the same table here.
"""

from __future__ import annotations

import numpy as np


def reference(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Return x + table[:T] for x of shape (N, T, d_model)."""
    x64 = np.asarray(x, dtype=np.float64)
    table64 = np.asarray(table, dtype=np.float64)
    seq_len, max_len = x64.shape[1], table64.shape[0]
    if seq_len > max_len:
        raise ValueError(f"sequence length {seq_len} exceeds max_len {max_len}")
    return x64 + table64[:seq_len]
