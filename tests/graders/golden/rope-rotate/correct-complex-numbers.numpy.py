# Style: each pair as one complex number, rotated by multiplying with e^{i t theta}.
import numpy as np


def rope_rotate(x):
    x = np.asarray(x, dtype=np.float64)
    n, t, d = x.shape
    pairs = x[..., 0::2] + 1j * x[..., 1::2]  # (N, T, d/2)
    freqs = 10000.0 ** (-np.arange(d // 2) * 2.0 / d)
    turn = np.exp(1j * np.outer(np.arange(t), freqs))  # (T, d/2)
    rotated = pairs * turn
    out = np.stack([rotated.real, rotated.imag], axis=-1)  # (N, T, d/2, 2)
    return out.reshape(n, t, d)
