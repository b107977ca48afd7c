import numpy as np


def scaled_dot_product_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Scaled dot-product attention, softmax(q k^T / sqrt(d_k)) v, for a batch of sequences.

    Args:
        q: (B, Tq, d_k) float32 array; q[b, i] is the query of token i.
        k: (B, Tk, d_k) keys, one per token that can be attended to.
        v: (B, Tk, d_v) values, one per key.

    Returns:
        (B, Tq, d_v): row i is the average of the values weighted by query i's softmax row.
    """
    # TODO 1: scores of every query against every key, (B, Tq, Tk), divided by sqrt(d_k).
    # TODO 2: a softmax over the keys (the last axis); keep it stable for large scores.
    # TODO 3: multiply the weights by v.
    return np.zeros((q.shape[0], q.shape[1], v.shape[2]), dtype=np.float32)  # placeholder
