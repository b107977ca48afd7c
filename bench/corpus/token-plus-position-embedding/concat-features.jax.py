import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    n, t = ids.shape
    pos = jnp.broadcast_to(position_table[:t], (n, t, position_table.shape[1]))
    return jnp.concatenate([token_table[ids], pos], axis=-1)
