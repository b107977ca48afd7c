# Attack: patches the in-sandbox harness (its converter and protocol.encode_error) so every test sends an array even when the code raises; arrays are still judged outside -> wrong_answer.
import sys

import numpy as np

harness = sys.modules["__main__"]
protocol = sys.modules["protocol"]
_encode_array = protocol.encode_array


def _fake_error(test, type_name, message):
    return _encode_array(test, np.zeros((1, 1, 1), dtype=np.float32))


harness._to_numpy = lambda value: np.ones((1, 1, 1), dtype=np.float32)
protocol.encode_error = _fake_error


def position_embedding_gather(positions, embedding_table):
    raise RuntimeError("no answer here")
