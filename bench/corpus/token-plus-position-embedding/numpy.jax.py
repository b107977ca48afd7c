import numpy as np


def embed_with_positions(token_ids, token_table, position_table):
    ids = np.asarray(token_ids).astype(np.int64)
    return np.asarray(token_table)[ids] + np.asarray(position_table)[: ids.shape[1]]
