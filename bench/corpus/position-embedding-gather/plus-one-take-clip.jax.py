import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32) + 1
    return jnp.take(embedding_table, ids, axis=0, mode="clip")
