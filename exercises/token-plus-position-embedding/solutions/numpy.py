import numpy as np


def embed_with_positions(token_ids, token_table, position_table):
    """token_table[token_ids] + position_table[:T], shape (N, T, d_model)."""
    ids = np.asarray(token_ids).astype(np.int64)  # (N, T)
    T = ids.shape[1]
    tokens = np.asarray(token_table)[ids]  # (N, T, d_model)
    return tokens + np.asarray(position_table)[:T]  # (T, d_model) broadcasts over N
