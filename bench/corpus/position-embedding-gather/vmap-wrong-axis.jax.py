import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32)
    return jax.vmap(lambda col: embedding_table[col], in_axes=1)(ids)
