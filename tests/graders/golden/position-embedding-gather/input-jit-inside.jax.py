# Bad input: the answer comes out of jax.jit as a concrete jax.Array (not a tracer) -> accepted.
import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    gather = jax.jit(lambda ids, table: jnp.take(table, ids.astype(jnp.int32), axis=0))
    return gather(positions, embedding_table)
