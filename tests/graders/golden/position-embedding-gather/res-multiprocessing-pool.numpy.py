# Attack: a multiprocessing pool of four workers does the gather; new processes are refused inside a job -> runtime_error.
import multiprocessing

import numpy as np


def _row(args):
    table, ids = args
    return table[ids]


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(np.int64)
    with multiprocessing.get_context("fork").Pool(4) as pool:
        rows = pool.map(_row, [(embedding_table, row) for row in ids])
    return np.stack(rows)
