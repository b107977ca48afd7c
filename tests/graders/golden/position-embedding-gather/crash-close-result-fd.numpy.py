# Attack: closes fd 4 (the result channel) and returns the right answer; no result can arrive -> runtime_error, never accepted.
import os

import numpy as np


def position_embedding_gather(positions, embedding_table):
    try:
        os.close(4)
    except OSError:
        pass
    return embedding_table[positions.astype(np.int64)]
