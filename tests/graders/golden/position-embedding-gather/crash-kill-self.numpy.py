# Attack: os.kill(os.getpid(), SIGKILL) then the right answer; the job runs in a fork server's child, so it kills only itself and the grader says so -> runtime_error.
import os
import signal

import numpy as np


def position_embedding_gather(positions, embedding_table):
    os.kill(os.getpid(), signal.SIGKILL)
    return embedding_table[positions.astype(np.int64)]
