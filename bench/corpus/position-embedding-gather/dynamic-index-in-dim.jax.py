import jax
import jax.numpy as jnp
from jax import lax


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32)
    pick = lambda i: lax.dynamic_index_in_dim(embedding_table, i, axis=0, keepdims=False)
    return jax.vmap(jax.vmap(pick))(ids)
