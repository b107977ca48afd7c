# Attack: grows a list of touched 64 MB arrays until the memory limit (RLIMIT_DATA) stops it -> memory_limit_exceeded.
import numpy as np

HOARD = []  # module level: after the first test, every later test fails at once


def position_embedding_gather(positions, embedding_table):
    while True:
        HOARD.append(np.ones((64, 1024, 1024), dtype=np.uint8))
