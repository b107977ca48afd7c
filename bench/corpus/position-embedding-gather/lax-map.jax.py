import jax.numpy as jnp
from jax import lax


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32)
    return lax.map(lambda seq: jnp.take(embedding_table, seq, axis=0), ids)
