import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    table = embedding_table.astype(jnp.bfloat16)
    return table[positions.astype(jnp.int32)]
