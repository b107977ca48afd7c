import numpy as np


def position_embedding_gather(positions, embedding_table):
    table = np.asarray(embedding_table)
    ids = np.asarray(positions).astype(np.int64)
    return table[ids]
