# Attack: maps 4 GB with no access (not data to the kernel), then mprotects it writable and touches it; the data limit counts the upgrade and refuses it -> memory_limit_exceeded.
import ctypes

import numpy as np

MAP_PRIVATE, MAP_ANONYMOUS, PROT_NONE, PROT_READ_WRITE = 0x02, 0x20, 0x0, 0x3
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
libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)


def _hoard():
    for _ in range(16):  # 4 GB in blocks, so each mapping fits in what address space is left
        address = libc.mmap(None, BLOCK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            # Blocks of earlier cases stay mapped, so a later case may find the address space
            # full before the data limit refuses: a refusal of memory either way, and saying so
            # keeps every case's verdict the same however far the earlier ones got.
            raise MemoryError("mmap was refused")
        if libc.mprotect(address, BLOCK, PROT_READ_WRITE) != 0:
            raise MemoryError("mprotect could not make the block writable")
        ctypes.memset(address, 1, BLOCK)


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
