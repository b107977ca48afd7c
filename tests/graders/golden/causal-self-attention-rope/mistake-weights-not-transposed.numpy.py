import numpy as np


def rope(x):
    t, d_head = x.shape[-2:]
    theta = 10000.0 ** (-np.arange(0, d_head, 2) / d_head)
    angles = np.arange(t)[:, None] * theta[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty(x.shape)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    return out


def causal_self_attention(
    x, lengths, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, num_heads
):
    b, t, d_model = x.shape
    d_head = d_model // num_heads
    w_q, w_k, w_v = np.split(in_proj_weight, 3, axis=0)
    b_q, b_k, b_v = np.split(in_proj_bias, 3)

    def split(a):
        return a.reshape(b, t, num_heads, d_head).transpose(0, 2, 1, 3)

    q = rope(split(x @ w_q + b_q))
    k = rope(split(x @ w_k + b_k))
    v = split(x @ w_v + b_v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_head)
    key = np.arange(t)
    allowed = (key[None, :] < lengths[:, None])[:, None, None, :] & (key[None, :] <= key[:, None])
    scores = np.where(allowed, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    merged = (weights @ v).transpose(0, 2, 1, 3).reshape(b, t, d_model)
    return merged @ out_proj_weight + out_proj_bias
