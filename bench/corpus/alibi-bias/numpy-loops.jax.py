import numpy as np


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    out = np.full((num_heads, T, T), -np.inf)
    for h in range(num_heads):
        m = 2 ** (-8 * (h + 1) / num_heads)
        for q in range(T):
            for k in range(q + 1):
                out[h, q, k] = -m * (q - k)
    return out
