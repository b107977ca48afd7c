"""Trusted reference for causal-self-attention-rope, written with torch's own attention.

The weights are those of `nn.MultiheadAttention(d_model, num_heads, batch_first=True)` (its
state_dict, with dots as underscores); the attention itself is
`torch.nn.functional.scaled_dot_product_attention` with a boolean mask (True = attend), in
float64. With `rope_on=False` this is exactly what the module computes with the same mask
(tests/content/test_attention_capstone.py loads the weights into one and compares).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

BASE = 10000.0


def rope(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Turn pair (2i, 2i+1) of each head vector by positions * BASE^(-2i/d_head).

    x is (B, H, T, d_head); positions is (T,) or (B, T), one position per token.
    """
    d_head = x.shape[-1]
    theta = BASE ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    angles = positions.to(torch.float64)[..., None] * theta  # (..., T, d_head / 2)
    if angles.ndim == 3:
        angles = angles[:, None]  # (B, 1, T, d_head / 2): the same for every head
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, T, d_model) -> (B, H, T, d_head), each head a contiguous slice of the features."""
    b, t, d_model = x.shape
    return x.reshape(b, t, num_heads, d_model // num_heads).transpose(1, 2)


def causal_self_attention(
    x: np.ndarray,
    lengths: np.ndarray,
    in_proj_weight: np.ndarray,
    in_proj_bias: np.ndarray,
    out_proj_weight: np.ndarray,
    out_proj_bias: np.ndarray,
    num_heads: int,
    rope_on: bool = True,
) -> np.ndarray:
    """Multi-head causal self-attention of a right-padded batch, RoPE on queries and keys."""
    xs = torch.as_tensor(np.asarray(x), dtype=torch.float64)
    b, t, d_model = xs.shape
    if d_model % num_heads or (d_model // num_heads) % 2:
        raise ValueError("d_model must split into num_heads heads of an even width")
    as64 = lambda a: torch.as_tensor(np.asarray(a), dtype=torch.float64)  # noqa: E731
    qkv = F.linear(xs, as64(in_proj_weight), as64(in_proj_bias))  # (B, T, 3 d_model)
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    if rope_on:
        positions = torch.arange(t)
        q, k = rope(q, positions), rope(k, positions)
    key = torch.arange(t)
    real = key[None, :] < torch.as_tensor(np.asarray(lengths))[:, None]  # (B, T)
    allowed = real[:, None, None, :] & (key[None, :] <= key[:, None])  # (B, 1, T, T)
    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)  # scale 1/sqrt(d_head)
    merged = heads.transpose(1, 2).reshape(b, t, d_model)
    return F.linear(merged, as64(out_proj_weight), as64(out_proj_bias)).numpy()
