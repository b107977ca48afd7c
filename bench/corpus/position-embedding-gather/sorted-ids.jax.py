import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = jnp.sort(positions.astype(jnp.int32), axis=1)
    return embedding_table[ids]
