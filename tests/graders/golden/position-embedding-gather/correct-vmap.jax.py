import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32)
    row = lambda i: embedding_table[i]  # noqa: E731
    return jax.vmap(jax.vmap(row))(ids)
