import numpy as np


def padded_attention_weights(scores, lengths, causal):
    """Softmax over the keys, with padding keys (and future keys if causal) set to -inf first."""
    t_q, t_k = scores.shape[-2:]
    key = np.arange(t_k)
    real = key[None, :] < np.asarray(lengths)[:, None]  # (B, Tk): True for real keys
    allowed = real[:, None, None, :]  # (B, 1, 1, Tk): the same for every head and query
    if causal:
        allowed = allowed & (key[None, :] <= np.arange(t_q)[:, None])  # and: both must allow
    masked = np.where(allowed, scores, -np.inf)
    masked = masked - masked.max(axis=-1, keepdims=True)  # key 0 is always real: finite
    weights = np.exp(masked)  # exp(-inf) is exactly 0
    return weights / weights.sum(axis=-1, keepdims=True)
