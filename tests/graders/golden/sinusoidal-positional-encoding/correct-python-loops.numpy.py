import math

import numpy as np


def sinusoidal_positional_encoding(max_len, d_model):
    pe = np.zeros((int(max_len), int(d_model)))
    for pos in range(int(max_len)):
        for i in range(0, int(d_model), 2):
            angle = pos / (10000 ** (i / d_model))
            pe[pos, i] = math.sin(angle)
            pe[pos, i + 1] = math.cos(angle)
    return pe
