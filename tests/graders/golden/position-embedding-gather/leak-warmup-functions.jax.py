# Probe: the warm-up ran model solutions in this process; right answer only if none of their functions survives for gc to find -> accepted.
import gc
import sys
import types

import jax.numpy as jnp


def _leaked():
    if "warmup" in sys.modules:
        return True
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__code__.co_filename == "warmup.py":
            return True
        if isinstance(obj, type) and getattr(obj, "__module__", "") == "warmup":
            return True
    return False


def position_embedding_gather(positions, embedding_table):
    answer = jnp.take(embedding_table, positions.astype(jnp.int32), axis=0)
    return jnp.zeros_like(answer) if _leaked() else answer
