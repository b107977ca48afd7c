import numpy as np


def position_embedding_gather(positions, embedding_table):
    return np.take(embedding_table, positions.astype(np.intp), axis=0)
