# Attack: maps 4 GB of /dev/zero with MAP_SHARED and touches it (shared memory the data limit does not count); shared mappings are refused inside a job -> runtime_error.
import mmap
import os

BLOCK = 256 << 20


def _hoard():
    fd = os.open("/dev/zero", os.O_RDWR)
    blocks = []
    for _ in range(16):  # 4 GB in blocks, so each mapping fits in what address space is left
        block = mmap.mmap(fd, BLOCK, flags=mmap.MAP_SHARED | mmap.MAP_POPULATE)
        for offset in range(0, BLOCK, 1 << 20):
            block[offset] = 1
        blocks.append(block)
    return blocks


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.long()]
