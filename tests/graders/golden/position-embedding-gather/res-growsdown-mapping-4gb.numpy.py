# Attack: a 4 GB MAP_GROWSDOWN mapping is stack to the kernel, so the data limit does not count it; such mappings are refused inside a job -> runtime_error.
import ctypes

import numpy as np

MAP_PRIVATE, MAP_ANONYMOUS, MAP_GROWSDOWN, MAP_POPULATE = 0x02, 0x20, 0x100, 0x8000
PROT_READ_WRITE = 0x3
BLOCK = 256 << 20

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
)


def _hoard():
    flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN | MAP_POPULATE
    for _ in range(16):  # 4 GB in blocks, so each mapping fits in what address space is left
        address = libc.mmap(None, BLOCK, PROT_READ_WRITE, flags, -1, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap(MAP_GROWSDOWN) was refused")
        ctypes.memset(address, 1, BLOCK)


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
