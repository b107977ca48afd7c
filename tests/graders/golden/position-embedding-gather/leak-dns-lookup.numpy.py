# Probe: right answer only if DNS resolution of public names fails (no network, no resolver) -> accepted.
import socket

import numpy as np


def _leaked():
    for name in ("example.com", "pypi.org", "github.com"):
        try:
            socket.getaddrinfo(name, 443)
            return True
        except OSError:
            pass
    return False


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return np.zeros_like(answer) if _leaked() else answer
