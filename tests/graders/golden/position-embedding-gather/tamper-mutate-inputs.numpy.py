# Attack: computes the right answer, then overwrites its input arrays in place; inputs are private copies and expected values live outside -> accepted.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)].copy()
    positions[...] = 0
    embedding_table[...] = np.nan
    return answer
