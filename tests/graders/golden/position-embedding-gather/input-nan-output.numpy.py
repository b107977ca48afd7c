# Bad input: right answer with one NaN in every output; NaN where none is expected never passes -> wrong_answer.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    out = embedding_table[positions.astype(np.int64)].copy()
    out[0, 0, 0] = np.nan
    return out
