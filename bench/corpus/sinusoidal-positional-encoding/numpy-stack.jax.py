import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    p = np.arange(max_len, dtype=np.float32)[:, None]
    f = np.float32(10000.0) ** (-np.arange(0, d_model, 2, dtype=np.float32) / d_model)
    return np.stack([np.sin(p * f), np.cos(p * f)], -1).reshape(max_len, d_model)
