import jax.numpy as jnp


def gather_positions(positions, embedding_table):
    return embedding_table[positions.astype(jnp.int32)]
