# Bad input: the gathered rows cast to int64 (values truncated); a float question refuses an integer answer -> wrong_answer.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(np.int64)].astype(np.int64)
