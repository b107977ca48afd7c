import jax
import jax.numpy as jnp


@jax.jit
def _gather(ids, table):
    return table[ids]


def position_embedding_gather(positions, embedding_table):
    return _gather(jnp.asarray(positions, dtype=jnp.int32), embedding_table)
