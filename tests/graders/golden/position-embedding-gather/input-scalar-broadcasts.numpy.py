# Bad input: a scalar that would broadcast against any expected array; shapes are compared first -> wrong_answer.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return np.float32(embedding_table.mean())
