# Attack: returns np.zeros((10**5, 10**4)) (8 GB of float64); the allocation fails under the memory limit -> memory_limit_exceeded.
import numpy as np


def position_embedding_gather(positions, embedding_table):
    return np.zeros((10**5, 10**4))
