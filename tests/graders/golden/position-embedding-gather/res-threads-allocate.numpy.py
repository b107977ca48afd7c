# Attack: four threads that each touch 1 GB; threads share the job's one address space, whose data limit (1536 MB) refuses the rest -> memory_limit_exceeded.
import threading

import numpy as np

BLOCKS = []
ERRORS = []


def _hoard():
    try:
        block = np.ones(1 << 30, dtype=np.uint8)
        block[::4096] = 2
        BLOCKS.append(block)
    except MemoryError as exc:
        ERRORS.append(exc)


def position_embedding_gather(positions, embedding_table):
    threads = [threading.Thread(target=_hoard) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if ERRORS:
        raise ERRORS[0]
    return embedding_table[positions.astype(np.int64)]
