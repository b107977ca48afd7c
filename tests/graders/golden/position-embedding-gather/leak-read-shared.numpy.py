# Probe: right answer only if the host's /work/shared folder (design notes, hooks) is invisible -> accepted.
import os

import numpy as np


def _leaked():
    for path in ("/work/shared", "/work/shared/design-notes.md", "/work/shared/interfaces.md"):
        if os.path.exists(path):
            return True
    try:
        return bool(set(os.listdir("/work")) - {"main"})
    except OSError:
        return False


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
