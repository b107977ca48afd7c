# Known mistake 'scores-transposed' (copied from mistakes.yaml): Put the keys on the rows (k . q instead of q . k).
import numpy as np


def _rotate(x):
    seq_len, d = x.shape
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    angles = np.arange(seq_len)[:, None] * theta[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty(x.shape, dtype=np.float64)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


def rope_attention_scores(q, k):
    q, k = np.asarray(q), np.asarray(k)
    d = q.shape[-1]
    return _rotate(k) @ _rotate(q).T / np.sqrt(d)
