import numpy as np


def rope(x):
    """Turn pair (2i, 2i+1) of the head vector at position t by t * 10000^(-2i/d_head)."""
    t, d_head = x.shape[-2:]
    theta = 10000.0 ** (-np.arange(0, d_head, 2) / d_head)  # (d_head/2,)
    angles = np.arange(t)[:, None] * theta[None, :]  # (T, d_head/2), the same for every head
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(x.shape, dtype=np.float64)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def causal_self_attention(
    x, lengths, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads
):
    """Projections, heads, RoPE, causal + padding mask, softmax(q k^T / sqrt(d_head)) v, W^O."""
    b, t, d_model = x.shape
    d_head = d_model // num_heads
    qkv = x @ in_proj_weight.T + in_proj_bias  # (B, T, 3 d_model): nn.Linear stores (out, in)
    q, k, v = np.split(qkv, 3, axis=-1)  # each (B, T, d_model)

    def split(a):  # (B, T, d_model) -> (B, H, T, d_head)
        return a.reshape(b, t, num_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = rope(split(q)), rope(split(k)), split(v)  # values are not rotated
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_head)  # (B, H, T, T)
    key = np.arange(t)
    real = key[None, :] < lengths[:, None]  # (B, T): right padding
    allowed = real[:, None, None, :] & (key[None, :] <= key[:, None])  # (B, 1, T, T)
    scores = np.where(allowed, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)  # key 0 is always visible
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    heads = weights @ v  # (B, H, T, d_head)
    merged = heads.transpose(0, 2, 1, 3).reshape(b, t, d_model)
    return merged @ out_proj_weight.T + out_proj_bias
