import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    angles = np.outer(np.arange(max_len), 1.0 / 10000 ** (np.arange(0, d_model, 2) / d_model))
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(max_len, d_model)
