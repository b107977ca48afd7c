# Probe: right answer only if the host's /work/shared folder (design notes, hooks) is invisible -> accepted.
import os
import sys

import numpy as np


def _leaked():
    for path in ("/work/shared", "/work/shared/design-notes.md", "/work/shared/interfaces.md"):
        if os.path.exists(path):
            return True
    # The interpreter's own folder is bound at its real path: a checkout in /work/<x>/ shows x.
    own = set(sys.executable.split("/")[2:3]) if sys.executable.startswith("/work/") else set()
    try:
        return bool(set(os.listdir("/work")) - {"main"} - own)
    except OSError:
        return False


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
