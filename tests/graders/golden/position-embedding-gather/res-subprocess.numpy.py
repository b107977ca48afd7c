# Attack: runs a second Python through subprocess (which could escape the job's limits); new processes are refused inside a job -> runtime_error.
import subprocess
import sys

import numpy as np


def position_embedding_gather(positions, embedding_table):
    subprocess.run([sys.executable, "-c", "print(1)"], check=True)
    return embedding_table[positions.astype(np.int64)]
