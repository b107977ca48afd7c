import numpy as np


def _rotate(x):
    """Turn pair (2i, 2i+1) of the row at position t by the angle t * 10000^(-2i/d)."""
    seq_len, d = x.shape
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)  # (d/2,) one frequency per pair
    angles = np.arange(seq_len)[:, None] * theta[None, :]  # (T, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]  # first and second coordinate of every pair
    out = np.empty(x.shape, dtype=np.float64)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


def rope_attention_scores(q, k):
    """s[m, n] = <R_m q_m, R_n k_n> / sqrt(d): rotate queries and keys, then dot them."""
    q, k = np.asarray(q), np.asarray(k)
    d = q.shape[-1]
    return _rotate(q) @ _rotate(k).T / np.sqrt(d)  # (T, T): row m is query m, column n key n
