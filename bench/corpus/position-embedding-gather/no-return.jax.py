import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    out = embedding_table[positions.astype(jnp.int32)]
