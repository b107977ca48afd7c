# Declared mistake: Masked with a large negative number instead of -inf
import numpy as np


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    slopes = 2.0 ** (-8.0 * np.arange(1, num_heads + 1) / num_heads)
    positions = np.arange(T)
    distance = positions[:, None] - positions[None, :]
    bias = -slopes[:, None, None] * distance[None, :, :]
    return np.where(distance >= 0, bias, -1e9)
