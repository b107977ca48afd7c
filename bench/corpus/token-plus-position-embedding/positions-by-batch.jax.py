import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    n = ids.shape[0]
    return token_table[ids] + position_table[:n][:, None, :]
