import numpy as np


def embed_with_positions(token_ids, token_table, position_table):
    n, t = token_ids.shape
    position_ids = np.broadcast_to(np.arange(t), (n, t))
    return token_table[token_ids.astype(int)] + position_table[position_ids]
