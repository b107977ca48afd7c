import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    t = ids.shape[1]
    return jnp.take(token_table, ids, axis=0) + jnp.take(position_table, jnp.arange(t), axis=0)
