# Attack: forks so a child answers every test and ends the result stream while the parent writes duplicate frames after END; a job cannot start processes, so the fork fails -> runtime_error.
import os

import numpy as np

FORKED = []


def position_embedding_gather(positions, embedding_table):
    if not FORKED:
        FORKED.append(os.fork())
        if FORKED[0] > 0:
            os.waitpid(FORKED[0], 0)  # the child has sent all ten results and END by now
    return embedding_table[positions.astype(np.int64)]
