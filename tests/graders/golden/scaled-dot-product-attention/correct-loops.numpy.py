import math

import numpy as np


def scaled_dot_product_attention(q, k, v):
    """One query at a time, with plain loops and a float64 softmax."""
    batch, t_q, d_k = q.shape
    out = np.zeros((batch, t_q, v.shape[-1]))
    for b in range(batch):
        for i in range(t_q):
            scores = np.array([float(q[b, i] @ k[b, j]) for j in range(k.shape[1])])
            scores = scores / math.sqrt(d_k)
            weights = np.exp(scores - scores.max())
            weights /= weights.sum()
            out[b, i] = weights @ v[b]
    return out
