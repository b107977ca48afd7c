import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    return jnp.cumsum(embedding_table, axis=0)[positions.astype(jnp.int32)]
