# Attack: answers the first test right, then os._exit(0) in the second; only the first test passes (score 0.1) -> runtime_error.
import os

import numpy as np

CALLS = []


def position_embedding_gather(positions, embedding_table):
    CALLS.append(1)
    if len(CALLS) > 1:
        os._exit(0)
    return embedding_table[positions.astype(np.int64)]
