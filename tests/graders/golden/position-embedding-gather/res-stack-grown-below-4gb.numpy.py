# Attack: raises its stack limit to the hard limit, then touches 4 GB below the main stack so the kernel grows it (stack is not data); the hard stack limit stops it -> runtime_error.
import ctypes
import resource

import numpy as np

BLOCK = 256 << 20
MADV_POPULATE_WRITE = 23

libc = ctypes.CDLL(None, use_errno=True)


def _stack_start():
    with open("/proc/self/maps") as maps:
        for line in maps:
            if line.rstrip().endswith("[stack]"):
                return int(line.split("-")[0], 16)
    raise RuntimeError("no [stack] line")


def _hoard():
    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))
    bottom = _stack_start()
    for step in range(1, 17):  # 4 GB in 256 MB steps
        low = bottom - step * BLOCK
        ctypes.memset(low, 1, 1)  # one fault below the stack: the kernel grows it down to here
        libc.madvise(ctypes.c_void_p(low), ctypes.c_size_t(BLOCK), MADV_POPULATE_WRITE)


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
