import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    n, t = token_ids.shape
    tokens = jnp.take(token_table, token_ids.astype(jnp.int32), axis=0)
    positions = jnp.broadcast_to(position_table[:t], (n, t, position_table.shape[1]))
    return tokens + positions
