import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32)
    return jax.vmap(jnp.take, in_axes=(None, 0))(embedding_table, ids)
