# Attack: writes garbage on fd 4 (the result channel) before its right answer; a corrupted channel must not pass -> runtime_error.
import os

import numpy as np


def position_embedding_gather(positions, embedding_table):
    os.write(4, b"garbage")
    return embedding_table[positions.astype(np.int64)]
