# Attack: returns a 400 MB float32 array: it fits the 2 GB memory limit but not the 64 MB result budget, an output flood (protocol.OverBudget) -> output_limit_exceeded|wrong_answer (a clear "too large", never "out of memory").
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return np.ones((10**4, 10**4), dtype=np.float32)
