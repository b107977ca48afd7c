import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    ids = positions.astype(jnp.int32)

    def row(i):
        return embedding_table[i]

    return jax.vmap(jax.vmap(row))(ids)
