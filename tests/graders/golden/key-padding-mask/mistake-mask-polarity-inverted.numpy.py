import numpy as np


def padded_attention_weights(scores, lengths, causal):
    t_q, t_k = scores.shape[-2:]
    key = np.arange(t_k)
    hide = (key[None, :] < lengths[:, None])[:, None, None, :]
    if causal:
        hide = hide | (key[None, :] > np.arange(t_q)[:, None])
    masked = np.where(hide, -1e9, scores)
    masked = masked - masked.max(axis=-1, keepdims=True)
    weights = np.exp(masked)
    return weights / weights.sum(axis=-1, keepdims=True)
