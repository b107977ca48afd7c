import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    return jnp.broadcast_to(embedding_table[:t], (n, t, embedding_table.shape[1]))
