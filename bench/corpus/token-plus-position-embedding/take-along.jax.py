import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    n, t = ids.shape
    d = token_table.shape[1]
    tok = token_table[ids.ravel()].reshape(n, t, d)
    return tok + position_table[:t]
