import numpy as np


def scaled_dot_product_attention(q, k, v):
    """softmax(q k^T / sqrt(d_k)) v, one row of weights per query."""
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # (B, Tq, Tk)
    # Subtracting each row's maximum changes no weight but keeps exp() from overflowing.
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)  # each row sums to 1
    return weights @ v  # (B, Tq, Tk) @ (B, Tk, d_v) -> (B, Tq, d_v)
