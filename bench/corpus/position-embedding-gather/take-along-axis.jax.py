import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    d = embedding_table.shape[1]
    idx = positions.astype(jnp.int32).reshape(1, n * t, 1)
    out = jnp.take_along_axis(embedding_table[None], idx, axis=1)
    return out.reshape(n, t, d)
