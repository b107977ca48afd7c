import numpy as np


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(np.int64)
    return embedding_table[ids]
