import numpy as np


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    out = np.zeros((n, t, embedding_table.shape[1]), dtype=embedding_table.dtype)
    for i in range(n):
        for j in range(t):
            out[i, j] = embedding_table[int(positions[i, j])]
    return out
