# Bad input: right values, axes swapped to (T, N, d_model); shapes must match exactly -> wrong_answer.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(np.int64)].transpose(1, 0, 2)
