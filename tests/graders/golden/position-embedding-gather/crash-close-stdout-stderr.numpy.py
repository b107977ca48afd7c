# Attack: prints (buffered), then closes fds 1 and 2 and returns the right answer; output is only a log -> accepted.
import os

import numpy as np


def position_embedding_gather(positions, embedding_table):
    print("buffered, never flushed", end="")
    for fd in (1, 2):
        try:
            os.close(fd)
        except OSError:
            pass
    return embedding_table[positions.astype(np.int64)]
