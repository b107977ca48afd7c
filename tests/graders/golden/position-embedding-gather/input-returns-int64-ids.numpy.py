# Bad input: returns the int64 position ids instead of the rows they select -> wrong_answer.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return positions.astype(np.int64)
