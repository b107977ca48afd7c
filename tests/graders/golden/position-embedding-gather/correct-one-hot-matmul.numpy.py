import numpy as np


def position_embedding_gather(positions, embedding_table):
    max_len = embedding_table.shape[0]
    ids = positions.astype(np.int64)
    one_hot = (ids[..., None] == np.arange(max_len)).astype(embedding_table.dtype)  # (N, T, L)
    return one_hot @ embedding_table  # (N, T, d_model): exactly one nonzero term per output
