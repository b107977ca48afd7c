# Bad input: returns nested Python lists of the right values; converted in the sandbox with np.array -> accepted.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(np.int64)].tolist()
