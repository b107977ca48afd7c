import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    d = token_table.shape[1]
    return token_table[ids] * jnp.sqrt(d) + position_table[: ids.shape[1]]
