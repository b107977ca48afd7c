import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    pos = np.arange(max_len)[:, None]
    i = np.arange(d_model // 2)[None, :]
    angle = pos / np.power(10000, 2 * i / d_model)
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe
