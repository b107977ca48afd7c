"""Trusted reference for kv-cache-decoding (plain NumPy, float64).

`full_sequence_attention` is the layer run on a whole left-padded sequence at once (the
capstone's layer with left padding); `decode_with_cache` continues it from a cache. The cases
build each cache by running the prompt through the same layer, so the new tokens' outputs must
equal the full-sequence outputs at their positions (tests/content/test_attention_capstone.py
checks it, token by token).
"""

from __future__ import annotations

import numpy as np

BASE = 10000.0


def rope(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Turn pair (2i, 2i+1) of each (B, H, T, d_head) head vector by positions[b, t] * theta_i."""
    d_head = x.shape[-1]
    theta = BASE ** (-np.arange(0, d_head, 2, dtype=np.float64) / d_head)
    angles = np.asarray(positions, dtype=np.float64)[:, None, :, None] * theta  # (B, 1, T, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(np.broadcast_shapes(x.shape, (*angles.shape[:-1], d_head)), dtype=np.float64)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def project(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray, num_heads: int
) -> tuple[np.ndarray, ...]:
    """q, k, v of (B, T, d_model) inputs, each split into heads: (B, H, T, d_head)."""
    b, t, d_model = x.shape
    qkv = x @ np.asarray(weight, np.float64).T + np.asarray(bias, np.float64)
    return tuple(
        part.reshape(b, t, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)
        for part in np.split(qkv, 3, axis=-1)
    )


def positions_of(pad: np.ndarray, start: int, count: int) -> np.ndarray:
    """(B, count) RoPE positions of slots start .. start + count - 1: slot - pad[b], from 0."""
    slots = start + np.arange(count)
    return np.maximum(slots[None, :] - np.asarray(pad)[:, None], 0)  # padding slots: 0


def attend(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, pad: np.ndarray, first_slot: int
) -> np.ndarray:
    """Causal (bottom-right) attention of the queries at slots first_slot.. over keys 0.., with
    each sequence's first pad[b] keys hidden; returns (B, H, Tq, d_head)."""
    t_q, t_k = q.shape[-2], k.shape[-2]
    query_slot = first_slot + np.arange(t_q)
    key = np.arange(t_k)
    allowed = (key[None, :] <= query_slot[:, None])[None, None] & (
        key[None, :] >= np.asarray(pad)[:, None]
    )[:, None, None, :]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(allowed, scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def merge(heads: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(B, H, T, d_head) heads -> (B, T, d_model), then the output projection."""
    b, h, t, d_head = heads.shape
    merged = heads.transpose(0, 2, 1, 3).reshape(b, t, h * d_head)
    return merged @ np.asarray(weight, np.float64).T + np.asarray(bias, np.float64)


def decode_with_cache(
    x: np.ndarray,
    k_cache: np.ndarray,
    v_cache: np.ndarray,
    pad: np.ndarray,
    in_proj_weight: np.ndarray,
    in_proj_bias: np.ndarray,
    out_proj_weight: np.ndarray,
    out_proj_bias: np.ndarray,
    num_heads: int,
) -> np.ndarray:
    """Outputs (B, S, d_model) of S new tokens that follow C cached slots."""
    x = np.asarray(x, dtype=np.float64)
    cache_len, new = k_cache.shape[-2], x.shape[1]
    if np.asarray(pad).min() < 0 or np.asarray(pad).max() > cache_len:
        raise ValueError("pad must be between 0 and the cache length")
    q, k, v = project(x, in_proj_weight, in_proj_bias, num_heads)
    positions = positions_of(np.asarray(pad), cache_len, new)
    q, k = rope(q, positions), rope(k, positions)
    keys = np.concatenate([np.asarray(k_cache, np.float64), k], axis=-2)
    values = np.concatenate([np.asarray(v_cache, np.float64), v], axis=-2)
    heads = attend(q, keys, values, np.asarray(pad), cache_len)
    return merge(heads, out_proj_weight, out_proj_bias)


def full_sequence_attention(
    x: np.ndarray,
    pad: np.ndarray,
    in_proj_weight: np.ndarray,
    in_proj_bias: np.ndarray,
    out_proj_weight: np.ndarray,
    out_proj_bias: np.ndarray,
    num_heads: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The layer on whole left-padded sequences (B, T, d_model): (output, rotated k, v)."""
    x = np.asarray(x, dtype=np.float64)
    q, k, v = project(x, in_proj_weight, in_proj_bias, num_heads)
    positions = positions_of(np.asarray(pad), 0, x.shape[1])
    q, k = rope(q, positions), rope(k, positions)
    return merge(attend(q, k, v, np.asarray(pad), 0), out_proj_weight, out_proj_bias), k, v
