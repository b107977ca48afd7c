import numpy as np


def causal_attention_weights(scores):
    t = scores.shape[-1]
    allowed = np.triu(np.ones((t, t), dtype=bool))
    masked = np.where(allowed, scores, -np.inf)
    masked = masked - masked.max(axis=-1, keepdims=True)
    weights = np.exp(masked)
    return weights / weights.sum(axis=-1, keepdims=True)
