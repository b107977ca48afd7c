import numpy as np


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(np.int64)
    return token_table[ids] + position_table[: ids.shape[1]]
