# Attack: forks four children that each touch 1 GB (4 GB in all, far over the 1536 MB limit); a job is one process, so the first fork is refused -> runtime_error.
import os

import numpy as np


def position_embedding_gather(positions, embedding_table):
    children = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            block = np.ones(1 << 30, dtype=np.uint8)
            block[::4096] = 2
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    return embedding_table[positions.astype(np.int64)]
