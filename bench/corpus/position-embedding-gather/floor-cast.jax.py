import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = jnp.floor(positions).astype("int32")
    return embedding_table[ids]
