# Known mistake 'one-based-positions' (copied from mistakes.yaml): Counted positions from 1.
import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    positions = np.arange(1, max_len + 1)[:, None]
    two_i = np.arange(0, d_model, 2)
    angles = positions / np.power(10000.0, two_i / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
