import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = jnp.asarray(positions, dtype=jnp.int32)
    out = embedding_table[ids]
    return out
