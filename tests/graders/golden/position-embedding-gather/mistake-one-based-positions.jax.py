# Known mistake 'one-based-positions' (copied from mistakes.yaml): Shifted the ids by one (1-based positions).
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32) + 1
    return embedding_table[ids]
