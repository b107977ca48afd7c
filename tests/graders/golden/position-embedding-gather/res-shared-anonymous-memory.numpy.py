# Attack: 2 GB of shared anonymous memory (mmap(-1)), which the data limit does not count; refused inside a job -> runtime_error.
import mmap

import numpy as np


def position_embedding_gather(positions, embedding_table):
    block = mmap.mmap(-1, 2 << 30)
    for offset in range(0, len(block), 4096):
        block[offset] = 1
    return embedding_table[positions.astype(np.int64)]
