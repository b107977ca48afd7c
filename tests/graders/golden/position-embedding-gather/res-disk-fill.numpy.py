# Probe: tries to write 1 GB into /tmp and $HOME; right answer only if the file size and tmpfs limits stop it below 80 MB -> accepted.
import os

import numpy as np

CHUNK = b"\0" * (1 << 20)


def _fill():
    written = 0
    for directory in ("/tmp", os.environ.get("HOME", "/tmp"), os.getcwd()):
        for index in range(64):
            try:
                with open(os.path.join(directory, f"fill-{os.getpid()}-{index}"), "ab") as handle:
                    for _ in range(64):
                        handle.write(CHUNK)
                        handle.flush()
                        written += len(CHUNK)
            except OSError:
                continue
    return written


def position_embedding_gather(positions, embedding_table):
    answer = embedding_table[positions.astype(np.int64)]
    return answer if _fill() < 80 * (1 << 20) else np.zeros_like(answer)
