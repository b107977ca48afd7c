import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = jnp.round(token_ids).astype("int32")
    return jnp.add(token_table[ids], position_table[: token_ids.shape[-1]])
