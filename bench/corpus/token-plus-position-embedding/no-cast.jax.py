import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    return token_table[token_ids] + position_table[: token_ids.shape[1]]
