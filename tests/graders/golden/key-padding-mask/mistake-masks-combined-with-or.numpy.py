import numpy as np


def padded_attention_weights(scores, lengths, causal):
    t_q, t_k = scores.shape[-2:]
    key = np.arange(t_k)
    allowed = (key[None, :] < lengths[:, None])[:, None, None, :]
    if causal:
        allowed = allowed | (key[None, :] <= np.arange(t_q)[:, None])
    masked = np.where(allowed, scores, -np.inf)
    masked = masked - masked.max(axis=-1, keepdims=True)
    weights = np.exp(masked)
    return weights / weights.sum(axis=-1, keepdims=True)
