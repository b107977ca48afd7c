import numpy as np


def embed_with_positions(token_ids, token_table, position_table):
    n, t = token_ids.shape
    tokens = np.take(token_table, token_ids.astype(np.intp), axis=0)
    positions = np.tile(position_table[:t][None, :, :], (n, 1, 1))
    return tokens + positions
