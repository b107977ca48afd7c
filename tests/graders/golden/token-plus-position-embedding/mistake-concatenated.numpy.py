# Known mistake 'concatenated' (copied from mistakes.yaml): Concatenated the two embeddings instead of adding them.
import numpy as np


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(np.int64)
    t = ids.shape[1]
    tokens = token_table[ids]
    positions = np.broadcast_to(position_table[:t], tokens.shape)
    return np.concatenate([tokens, positions], axis=-1)
