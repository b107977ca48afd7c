import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    """Gather embedding_table[positions] for a (N, T) batch of float-encoded ids."""
    ids = jnp.asarray(positions).astype(jnp.int32)  # (N, T)
    return jnp.take(embedding_table, ids, axis=0)  # (N, T, d_model)
