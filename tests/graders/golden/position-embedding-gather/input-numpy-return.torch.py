# Bad input: a torch exercise answered with a NumPy array; any array-like of the framework or NumPy is allowed -> accepted.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return embedding_table.numpy()[positions.numpy().astype(np.int64)]
