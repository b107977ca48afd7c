# Attack: SIGKILL to the parent (pid 1, the fork server, which ignores signals from inside its namespace) and to the job's own process group; only the job itself dies, nothing outside can be reached -> runtime_error.
import contextlib
import os
import signal

import numpy as np


def position_embedding_gather(positions, embedding_table):
    with contextlib.suppress(OSError):
        os.kill(os.getppid(), signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.killpg(os.getpgrp(), signal.SIGKILL)
    return embedding_table[positions.astype(np.int64)]
