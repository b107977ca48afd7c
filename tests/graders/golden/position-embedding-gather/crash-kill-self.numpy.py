# Attack: os.kill(os.getpid(), SIGKILL) then the right answer; the harness is pid 1 of its namespace, so the signal is ignored -> accepted.
import os
import signal

import numpy as np


def position_embedding_gather(positions, embedding_table):
    os.kill(os.getpid(), signal.SIGKILL)
    return embedding_table[positions.astype(np.int64)]
