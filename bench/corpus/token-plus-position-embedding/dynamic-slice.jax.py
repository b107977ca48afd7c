import jax.numpy as jnp
from jax import lax


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    t, d = ids.shape[1], position_table.shape[1]
    pos = lax.dynamic_slice(position_table, (0, 0), (t, d))
    return token_table[ids] + pos
