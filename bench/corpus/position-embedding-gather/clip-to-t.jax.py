import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    t = positions.shape[1]
    ids = jnp.clip(positions.astype(jnp.int32), 0, t - 1)
    return embedding_table[ids]
