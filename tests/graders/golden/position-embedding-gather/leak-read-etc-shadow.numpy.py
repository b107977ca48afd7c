# Probe: right answer only if /etc/shadow, /etc/passwd and other host configuration cannot be read -> accepted.
import os

import numpy as np

ALLOWED = {"ld.so.cache", "ld.so.conf", "ld.so.conf.d"}


def _leaked():
    for path in ("/etc/shadow", "/etc/passwd", "/etc/hostname", "/etc/resolv.conf", "/etc/ssh"):
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            return True
        except OSError:
            pass
    try:
        return bool(set(os.listdir("/etc")) - ALLOWED)
    except OSError:
        return False


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
