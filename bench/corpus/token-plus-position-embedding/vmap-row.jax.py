import jax
import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    tok = jax.vmap(jax.vmap(lambda i: token_table[i]))(ids)
    return tok + position_table[: ids.shape[1]]
