import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    flat = positions.reshape(-1).astype(jnp.int32)
    return embedding_table[flat].reshape(n, t, embedding_table.shape[-1])
