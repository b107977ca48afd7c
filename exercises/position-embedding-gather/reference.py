"""Trusted reference for position-embedding-gather (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def position_embedding_gather(positions: np.ndarray, embedding_table: np.ndarray) -> np.ndarray:
    """Return embedding_table[positions] with shape (N, T, d_model)."""
    raw = np.asarray(positions)
    ids = raw.astype(np.int64)
    if not np.array_equal(ids, raw):
        raise ValueError("positions must hold whole numbers")
    table = np.asarray(embedding_table, dtype=np.float64)
    if ids.min() < 0 or ids.max() >= table.shape[0]:
        raise ValueError("a position id is outside the table")
    return table[ids]
