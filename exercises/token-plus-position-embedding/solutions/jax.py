import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    """token_table[token_ids] + position_table[:T], shape (N, T, d_model)."""
    ids = jnp.asarray(token_ids).astype(jnp.int32)  # (N, T)
    T = ids.shape[1]
    tokens = jnp.take(token_table, ids, axis=0)  # (N, T, d_model)
    return tokens + position_table[:T]  # (T, d_model) broadcasts over N
