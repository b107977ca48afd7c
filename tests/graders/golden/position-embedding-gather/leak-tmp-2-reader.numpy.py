# Probe, runs after leak-tmp-1-writer: right answer only if none of the files that job left behind is visible -> accepted.
import os

import numpy as np

MARKERS = ["/tmp/golden-marker", "/dev/shm/golden-marker", "/var/tmp/golden-marker"]


def _leaked():
    return any(os.path.exists(path) for path in MARKERS) or os.path.exists("/tmp/golden-dir")


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
