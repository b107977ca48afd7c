import numpy as np


def causal_attention_weights(scores):
    t = scores.shape[-1]
    shifted = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(shifted)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights * np.tril(np.ones((t, t)))
