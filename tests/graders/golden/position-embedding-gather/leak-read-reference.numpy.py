# Probe: right answer only if the trusted reference.py of this exercise cannot be read from the sandbox -> accepted.
import os

import numpy as np

PATHS = [
    "/work/main/exercises/position-embedding-gather/reference.py",
    "/work/main/exercises/position-embedding-gather/solutions/numpy.py",
    "/work/main/exercises",
    "reference.py",
    "../reference.py",
]


def _leaked():
    for path in PATHS:
        if os.path.exists(path):
            return True
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            return True
        except OSError:
            pass
    return False


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
