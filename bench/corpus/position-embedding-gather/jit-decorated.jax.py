import jax
import jax.numpy as jnp


@jax.jit
def position_embedding_gather(positions, embedding_table):
    return embedding_table[positions.astype(jnp.int32)]
