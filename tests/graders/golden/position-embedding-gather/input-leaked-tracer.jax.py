# Bad input: returns a tracer leaked out of jax.jit; it holds no values and cannot be converted -> runtime_error.
import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    leaked = []

    def gather(ids, table):
        out = jnp.take(table, ids.astype(jnp.int32), axis=0)
        leaked.append(out)
        return out

    jax.jit(gather)(positions, embedding_table)
    return leaked[0]
