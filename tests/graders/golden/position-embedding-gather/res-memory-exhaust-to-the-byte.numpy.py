# Attack: fills memory down to the last few bytes and keeps it, leaving the harness almost nothing to report the error with; it still reports it -> memory_limit_exceeded.
import numpy as np

HOARD = []


def position_embedding_gather(positions, embedding_table):
    for size in (64 << 20, 1 << 20, 64 << 10, 4 << 10, 256, 16):
        while True:
            try:
                HOARD.append(np.ones(size, dtype=np.uint8) if size > 4096 else bytearray(size))
            except MemoryError:
                break
    raise MemoryError("out of memory on purpose")
