"""Trusted reference for scaled-dot-product-attention (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def scaled_dot_product_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(q k^T / sqrt(d_k)) v for q (B, Tq, d_k), k (B, Tk, d_k) and v (B, Tk, d_v)."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if q.ndim != 3 or k.ndim != 3 or v.ndim != 3 or k.shape[:2] != v.shape[:2]:
        raise ValueError("expected q (B, Tq, d_k), k (B, Tk, d_k) and v (B, Tk, d_v)")
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # (B, Tq, Tk)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v  # (B, Tq, d_v)
