# Attack: an object that says it equals anything and offers wrong values through __array__; only the bytes are compared -> wrong_answer.
import numpy as np


class Liar:
    def __init__(self, shape):
        self.shape = shape

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__

    def __array__(self, dtype=None, copy=None):
        return np.zeros(self.shape, dtype=dtype or np.float32)


def position_embedding_gather(positions, embedding_table):
    return Liar(positions.shape + embedding_table.shape[1:])
