import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same angle)."""
    max_len, d_model = int(max_len), int(d_model)
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)  # (d_model // 2,)
    angles = positions / np.power(10000.0, two_i / d_model)  # (max_len, d_model // 2)
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
