import numpy as np


def rotate(x, position):
    """RoPE of (B, H, d_head) vectors, each sequence at its own position (B,)."""
    d_head = x.shape[-1]
    angles = position[:, None, None] * 10000.0 ** (-np.arange(0, d_head, 2) / d_head)
    out = np.empty(x.shape)
    out[..., 0::2] = x[..., 0::2] * np.cos(angles) - x[..., 1::2] * np.sin(angles)
    out[..., 1::2] = x[..., 0::2] * np.sin(angles) + x[..., 1::2] * np.cos(angles)
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
    """One new token at a time, as generation does: append its key and value, then attend."""
    b, s, d_model = x.shape
    d_head = d_model // num_heads
    keys, values, outputs = k_cache, v_cache, []
    for n in range(s):
        q, k, v = np.split(x[:, n] @ in_proj_weight.T + in_proj_bias, 3, axis=-1)  # (B, d_model)
        q, k, v = (a.reshape(b, num_heads, d_head) for a in (q, k, v))
        slot = keys.shape[2]  # this token's slot: every slot before it is visible
        q, k = rotate(q, slot - pad), rotate(k, slot - pad)
        keys = np.concatenate([keys, k[:, :, None]], axis=2)
        values = np.concatenate([values, v[:, :, None]], axis=2)
        scores = np.einsum("bhd,bhkd->bhk", q, keys) / np.sqrt(d_head)
        padding = np.arange(slot + 1)[None, None, :] < pad[:, None, None]  # (B, 1, slots)
        scores = np.where(padding, -np.inf, scores)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        heads = np.einsum("bhk,bhkd->bhd", weights, values).reshape(b, d_model)
        outputs.append(heads @ out_proj_weight.T + out_proj_bias)
    return np.stack(outputs, axis=1)
