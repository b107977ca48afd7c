import numpy as np


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    m = 2.0 ** (-8.0 * np.arange(1, num_heads + 1) / num_heads)
    d = np.subtract.outer(np.arange(T), np.arange(T))
    b = -m[:, None, None] * d
    b[:, d < 0] = -np.inf
    return b
