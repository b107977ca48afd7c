# Known mistake 'sin-then-cos-halves' (copied from mistakes.yaml): All sines first, then all cosines.
import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    positions = np.arange(max_len)[:, None]
    two_i = np.arange(0, d_model, 2)
    angles = positions / np.power(10000.0, two_i / d_model)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
