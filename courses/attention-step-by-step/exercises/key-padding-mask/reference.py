"""Trusted reference for key-padding-mask (plain NumPy, float64)."""

from __future__ import annotations

import numpy as np


def allowed_keys(lengths: np.ndarray, t_q: int, t_k: int, causal: int) -> np.ndarray:
    """(B, 1, Tq, Tk) booleans: True where query i may attend to key j of sequence b."""
    lengths = np.asarray(lengths).reshape(-1)
    key = np.arange(t_k)
    real = key[None, :] < lengths[:, None]  # (B, Tk): the first lengths[b] keys are real
    allowed = np.broadcast_to(real[:, None, None, :], (len(lengths), 1, t_q, t_k))
    if causal:
        allowed = allowed & (key[None, :] <= np.arange(t_q)[:, None])
    return allowed


def padded_attention_weights(scores: np.ndarray, lengths: np.ndarray, causal: int) -> np.ndarray:
    """Softmax over the keys of (B, H, Tq, Tk) scores after hiding padding (and future) keys."""
    scores = np.asarray(scores, dtype=np.float64)
    lengths = np.asarray(lengths)
    if scores.ndim != 4 or lengths.shape != (scores.shape[0],):
        raise ValueError("scores must be (B, H, Tq, Tk) and lengths (B,)")
    if lengths.min() < 1 or lengths.max() > scores.shape[-1]:
        raise ValueError("every length must be between 1 and Tk")
    if causal and scores.shape[-1] != scores.shape[-2]:
        raise ValueError("a causal mask needs as many queries as keys")
    allowed = allowed_keys(lengths, scores.shape[-2], scores.shape[-1], causal)
    masked = np.where(allowed, scores, -np.inf)
    masked -= masked.max(axis=-1, keepdims=True)  # key 0 is always allowed: finite
    weights = np.exp(masked)  # exp(-inf) = 0 exactly
    return weights / weights.sum(axis=-1, keepdims=True)
