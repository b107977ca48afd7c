import numpy as np


def position_embedding_gather(positions, embedding_table):
    table = np.asarray(embedding_table, dtype=np.float64)
    return table[np.rint(positions).astype(int)]
