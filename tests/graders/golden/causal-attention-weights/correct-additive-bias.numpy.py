import numpy as np


def causal_attention_weights(scores):
    """Add a bias of 0 or -1e9 to the scores, then a stable softmax."""
    t = scores.shape[-1]
    bias = np.triu(np.full((t, t), -1e9), k=1)
    s = scores.astype(np.float64) + bias
    s -= s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)
