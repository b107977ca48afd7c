import numpy as np


def rope_rotate(x):
    x = np.asarray(x)
    _, t, d = x.shape
    th = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float32) / d)
    ang = np.arange(t, dtype=np.float32)[:, None] * th
    e, o = x[..., ::2], x[..., 1::2]
    return np.stack([e * np.cos(ang) - o * np.sin(ang), e * np.sin(ang) + o * np.cos(ang)], -1).reshape(x.shape)
