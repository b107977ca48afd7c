# Known mistake 'token-scaled-by-sqrt-d' (copied from mistakes.yaml): Multiplied the token vectors by sqrt(d_model).
import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    T = ids.shape[1]
    d_model = token_table.shape[1]
    return token_table[ids] * jnp.sqrt(d_model) + position_table[:T]
