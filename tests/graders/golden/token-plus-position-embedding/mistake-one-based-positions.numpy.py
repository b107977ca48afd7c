# Known mistake 'one-based-positions' (copied from mistakes.yaml): Started the positions at 1.
import numpy as np


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(np.int64)
    t = ids.shape[1]
    return token_table[ids] + position_table[1 : t + 1]
