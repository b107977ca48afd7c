import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    d = embedding_table.shape[1]
    return embedding_table[positions.astype(jnp.int32)] * jnp.sqrt(d)
