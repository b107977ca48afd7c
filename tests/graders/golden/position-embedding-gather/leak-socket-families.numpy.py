# Probe: right answer only if AF_INET/AF_INET6/AF_NETLINK/AF_PACKET sockets cannot be created (seccomp allows AF_UNIX only) -> accepted.
import socket

import numpy as np

FAMILIES = [
    (socket.AF_INET, socket.SOCK_STREAM),
    (socket.AF_INET, socket.SOCK_DGRAM),
    (socket.AF_INET6, socket.SOCK_STREAM),
    (socket.AF_NETLINK, socket.SOCK_RAW),
    (socket.AF_PACKET, socket.SOCK_RAW),
]


def _leaked():
    for family, kind in FAMILIES:
        try:
            socket.socket(family, kind).close()
            return True
        except OSError:
            pass
    return False


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
