import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    p = np.arange(max_len, dtype=np.float64)[:, None]
    two_i = np.arange(0, d_model, 2, dtype=np.float64)[None, :]
    angles = p / np.power(10000.0, two_i / d_model)
    pe = np.empty((max_len, d_model), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
