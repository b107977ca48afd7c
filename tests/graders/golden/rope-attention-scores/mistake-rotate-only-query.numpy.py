import numpy as np


def rotate(x):
    seq_len, d = x.shape
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    angles = np.arange(seq_len)[:, None] * theta[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty(x.shape)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out


def rope_attention_scores(q, k):
    d = q.shape[-1]
    return rotate(q) @ k.T / np.sqrt(d)
