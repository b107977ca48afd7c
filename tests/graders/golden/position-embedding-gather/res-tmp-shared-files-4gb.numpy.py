# Attack: maps 256 sparse 16 MB files of the private /tmp with MAP_SHARED and touches them (tmpfs pages the data limit does not count); shared mappings are refused inside a job -> runtime_error.
import mmap
import os

import numpy as np

FILE_BYTES = 16 << 20


def _hoard():
    blocks = []
    for index in range(256):
        fd = os.open(f"/tmp/hoard-{index}", os.O_RDWR | os.O_CREAT, 0o600)
        os.ftruncate(fd, FILE_BYTES)
        block = mmap.mmap(fd, FILE_BYTES, flags=mmap.MAP_SHARED)
        os.close(fd)
        for offset in range(0, FILE_BYTES, 4096):
            block[offset] = 1
        blocks.append(block)
    return blocks


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
