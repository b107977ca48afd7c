# Attack: fills Unix socket pairs whose send buffers it enlarged (kernel memory the data limit does not count, 2 GB with 250 descriptors); sockets are refused inside a job -> runtime_error.
import socket

import numpy as np

CHUNK = b"x" * (1 << 16)


def _hoard():
    kept = []
    while len(kept) < 240:
        pair = socket.socketpair()
        kept.extend(pair)
        for sock in pair:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
            sock.setblocking(False)
            try:
                while True:
                    sock.send(CHUNK)
            except BlockingIOError:
                pass
    return kept


def position_embedding_gather(positions, embedding_table):
    _hoard()
    return embedding_table[positions.astype(np.int64)]
