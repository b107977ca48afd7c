import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    out = jnp.zeros((n, t, embedding_table.shape[1]), embedding_table.dtype)
    for b in range(n):
        for s in range(t):
            out = out.at[b, s].set(embedding_table[int(positions[b, s])])
    return out
