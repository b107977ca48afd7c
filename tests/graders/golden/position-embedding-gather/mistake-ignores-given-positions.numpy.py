# Known mistake 'ignores-given-positions' (copied from mistakes.yaml): Used positions 0..T-1 instead of the given ids.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    rows = embedding_table[:t]  # (T, d_model): positions 0..T-1
    return np.broadcast_to(rows, (n, t, embedding_table.shape[1])).copy()
