# Attack: fills an anonymous in-memory file (memfd) with 2 GB, memory outside the data limit; refused inside a job -> runtime_error.
import os

import numpy as np


def position_embedding_gather(positions, embedding_table):
    fd = os.memfd_create("hoard")
    chunk = b"x" * (1 << 20)
    for _ in range(2048):
        os.write(fd, chunk)
    return embedding_table[positions.astype(np.int64)]
