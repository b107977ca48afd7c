"""Trusted reference for sinusoidal-positional-encoding (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> np.ndarray:
    """Return the (max_len, d_model) table with interleaved sin (even) and cos (odd) columns."""
    max_len, d_model = int(max_len), int(d_model)
    if max_len < 1 or d_model < 2 or d_model % 2:
        raise ValueError("max_len must be >= 1 and d_model a positive even number")
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    two_i = np.arange(0, d_model, 2, dtype=np.float64)[None, :]
    angles = positions / np.power(10000.0, two_i / d_model)
    pe = np.empty((max_len, d_model), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
