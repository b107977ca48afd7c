import numpy as np


def rot(x):
    x = np.asarray(x, np.float64)
    t, d = x.shape
    ang = np.arange(t)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * np.cos(ang) - x[:, 1::2] * np.sin(ang)
    out[:, 1::2] = x[:, 0::2] * np.sin(ang) + x[:, 1::2] * np.cos(ang)
    return out


def rope_attention_scores(q, k):
    return rot(q) @ rot(k).T / np.sqrt(q.shape[-1])
