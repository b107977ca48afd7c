# Style: plain loops over heads, queries and keys (slow but clear; fine at these sizes).
import numpy as np


def alibi_bias(num_heads, T):
    heads, length = int(num_heads), int(T)
    out = np.full((heads, length, length), -np.inf, dtype=np.float32)
    for h in range(heads):
        slope = 2.0 ** (-8.0 * (h + 1) / heads)
        for i in range(length):
            for j in range(i + 1):
                out[h, i, j] = -slope * (i - j)
    return out
