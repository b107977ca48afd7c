# Attack: an ndarray subclass with lying __eq__, __array_function__ and __array_ufunc__, holding wrong values (zeros) -> wrong_answer.
import numpy as np


class Liar(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(other), dtype=bool)

    def __array_function__(self, func, types, args, kwargs):
        return True

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return np.ones(np.shape(inputs[0]), dtype=bool)


def position_embedding_gather(positions, embedding_table):
    shape = positions.shape + embedding_table.shape[1:]
    return np.zeros(shape, dtype=np.float32).view(Liar)
