# Attack: holds most of its memory limit, then makes up to 3 M empty files with 200-byte names in /tmp (kernel memory no byte limit counts); right answer only if the file count is bounded below 20,000 -> accepted.
import os
import resource
import time

import numpy as np

NAME = "x" * 190
MOST = 3_000_000
BOUND = 20_000


def _hold_memory():
    soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
    size = (soft if soft != resource.RLIM_INFINITY else 1 << 30) * 6 // 10
    return np.ones(size // 8)  # touched: resident for the whole job


def _hoard(stop_at):
    made = 0
    while made < MOST and time.monotonic() < stop_at:
        try:
            os.close(os.open(f"/tmp/{made:09d}{NAME}", os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            break
        made += 1
    return made


FOUND = []


def position_embedding_gather(positions, embedding_table):
    if not FOUND:  # once per job: the first test's call
        held = _hold_memory()
        FOUND.append(_hoard(time.monotonic() + 3.0) < BOUND and held[-1] == 1)
    answer = np.asarray(embedding_table)[np.asarray(positions).astype(np.int64)]
    return answer if FOUND[0] else np.zeros_like(answer)
