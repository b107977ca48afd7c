# Bad input: forgets to return (None); an object array cannot be judged -> runtime_error.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    out = embedding_table[positions.astype(np.int64)]  # noqa: F841
