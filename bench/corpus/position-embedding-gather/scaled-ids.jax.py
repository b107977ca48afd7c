import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    return embedding_table[(positions * 0.999).astype(jnp.int32)]
