import numpy as np


def causal_attention_weights(scores):
    """Softmax over the keys, with every key after the query set to -inf first."""
    t = scores.shape[-1]
    allowed = np.tril(np.ones((t, t), dtype=bool))  # (T, T): True where key j <= query i
    masked = np.where(allowed, scores, -np.inf)  # broadcasts over batch and heads
    masked = masked - masked.max(axis=-1, keepdims=True)  # key i = query i is never masked
    weights = np.exp(masked)  # exp(-inf) is exactly 0
    return weights / weights.sum(axis=-1, keepdims=True)
