import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    t = ids.shape[1]
    return token_table[ids] + position_table[-t:]
