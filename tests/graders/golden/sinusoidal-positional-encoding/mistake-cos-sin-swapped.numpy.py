# Known mistake 'cos-sin-swapped' (copied from mistakes.yaml): Cosine in the even columns, sine in the odd ones.
import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    positions = np.arange(max_len)[:, None]
    two_i = np.arange(0, d_model, 2)
    angles = positions / np.power(10000.0, two_i / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.cos(angles)
    pe[:, 1::2] = np.sin(angles)
    return pe
