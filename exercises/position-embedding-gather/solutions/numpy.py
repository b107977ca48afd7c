import numpy as np


def position_embedding_gather(positions, embedding_table):
    """Gather embedding_table[positions] for a (N, T) batch of float-encoded ids."""
    ids = np.asarray(positions).astype(np.int64)  # (N, T)
    return np.asarray(embedding_table)[ids]  # (N, T, d_model)
