import numpy as np


def rope_rotate(x):
    x = np.asarray(x, dtype=np.float64)
    _, t, d = x.shape
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    ang = np.arange(t)[:, None] * theta
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * np.cos(ang) - x[..., 1::2] * np.sin(ang)
    out[..., 1::2] = x[..., 0::2] * np.sin(ang) + x[..., 1::2] * np.cos(ang)
    return out
