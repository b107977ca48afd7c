# Bad input: an output full of NaN of the right shape (NaN compares false, a naive "no element differs" check would pass it) -> wrong_answer.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return np.full(positions.shape + embedding_table.shape[1:], np.nan, dtype=np.float32)
