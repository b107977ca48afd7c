import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    return embedding_table[1:][positions.astype(jnp.int32)]
