# Attack: prints 32 MB once, then returns the right answer; output is a log truncated at the cap, never status -> accepted.
import sys

import numpy as np

FLOODED = []


def position_embedding_gather(positions, embedding_table):
    if not FLOODED:
        line = "x" * 1023 + "\n"
        for _ in range(32 * 1024):
            sys.stdout.write(line)
        sys.stdout.flush()
        FLOODED.append(True)
    return embedding_table[positions.astype(np.int64)]
