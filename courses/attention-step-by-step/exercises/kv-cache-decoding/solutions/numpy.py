import numpy as np


def rope(x, positions):
    """Turn pair (2i, 2i+1) of each head vector by positions[b, t] * 10000^(-2i/d_head)."""
    d_head = x.shape[-1]
    theta = 10000.0 ** (-np.arange(0, d_head, 2) / d_head)  # (d_head/2,)
    angles = positions[:, None, :, None] * theta  # (B, 1, S, d_head/2): one row per sequence
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty(x.shape, dtype=np.float64)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    return out


def decode_with_cache(
    x,
    k_cache,
    v_cache,
    pad,
    in_proj_weight,
    in_proj_bias,
    out_proj_weight,
    out_proj_bias,
    num_heads,
):
    """The layer's output for S new tokens, attending to the cache and to each other."""
    b, s, d_model = x.shape
    d_head = d_model // num_heads
    c = k_cache.shape[2]  # cached slots, padding included

    def split(a):  # (B, S, d_model) -> (B, H, S, d_head)
        return a.reshape(b, s, num_heads, d_head).transpose(0, 2, 1, 3)

    q, k, v = (split(a) for a in np.split(x @ in_proj_weight.T + in_proj_bias, 3, axis=-1))
    positions = c + np.arange(s)[None, :] - pad[:, None]  # (B, S): after the cache, minus padding
    q, k = rope(q, positions), rope(k, positions)  # cached keys are already rotated
    keys = np.concatenate([k_cache, k], axis=2)  # (B, H, C + S, d_head)
    values = np.concatenate([v_cache, v], axis=2)
    scores = q @ keys.transpose(0, 1, 3, 2) / np.sqrt(d_head)  # (B, H, S, C + S)
    slot = np.arange(c + s)
    causal = slot[None, :] <= (c + np.arange(s))[:, None]  # bottom-right: new token n is slot c + n
    real = slot[None, :] >= pad[:, None]  # (B, C + S): left padding hidden
    allowed = causal[None, None] & real[:, None, None, :]
    scores = np.where(allowed, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    merged = (weights @ values).transpose(0, 2, 1, 3).reshape(b, s, d_model)
    return merged @ out_proj_weight.T + out_proj_bias
