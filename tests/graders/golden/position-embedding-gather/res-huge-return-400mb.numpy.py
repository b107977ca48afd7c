# Attack: returns a 400 MB float32 array: it fits the 2 GB memory limit but not the 64 MB result budget, an output flood (protocol.OverBudget) -> output_limit_exceeded|wrong_answer (a clear "too large", never "out of memory").
import numpy as np

_HUGE = []  # made once and returned by every case: 15 fresh fills came near 5 s on a busy machine


def position_embedding_gather(positions, embedding_table):
    if not _HUGE:
        _HUGE.append(np.ones((10**4, 10**4), dtype=np.float32))
    return _HUGE[0]
