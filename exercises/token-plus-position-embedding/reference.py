"""Trusted reference for token-plus-position-embedding (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def embed_with_positions(
    token_ids: np.ndarray, token_table: np.ndarray, position_table: np.ndarray
) -> np.ndarray:
    """Return token_table[token_ids] + position_table[:T] with shape (N, T, d_model)."""
    raw = np.asarray(token_ids)
    ids = raw.astype(np.int64)
    if not np.array_equal(ids, raw):
        raise ValueError("token ids must hold whole numbers")
    tokens = np.asarray(token_table, dtype=np.float64)
    positions = np.asarray(position_table, dtype=np.float64)
    seq_len = ids.shape[1]
    if seq_len > positions.shape[0]:
        raise ValueError("the sequence is longer than the position table")
    return tokens[ids] + positions[:seq_len]
