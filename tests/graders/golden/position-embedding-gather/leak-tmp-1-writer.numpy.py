# Attack: leaves files in /tmp, $HOME and /dev/shm for the next job to find; its own answer is right -> accepted (leak-tmp-2-reader checks they are gone).
import contextlib
import os

import numpy as np

MARKERS = ["/tmp/golden-marker", "/dev/shm/golden-marker", "/var/tmp/golden-marker"]


def position_embedding_gather(positions, embedding_table):
    for path in MARKERS:
        with contextlib.suppress(OSError), open(path, "w") as handle:
            handle.write("left behind by an earlier job")
    with contextlib.suppress(OSError):
        os.makedirs("/tmp/golden-dir/nested", exist_ok=True)
    return embedding_table[positions.astype(np.int64)]
