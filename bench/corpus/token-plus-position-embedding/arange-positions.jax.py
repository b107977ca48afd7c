import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    n, t = ids.shape
    pos_ids = jnp.broadcast_to(jnp.arange(t), (n, t))
    return token_table[ids] + position_table[pos_ids]
