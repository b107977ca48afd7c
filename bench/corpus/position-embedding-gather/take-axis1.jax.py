import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    return jnp.take(embedding_table, positions.astype(jnp.int32), axis=1)
