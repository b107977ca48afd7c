import jax
import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    oh = jax.nn.one_hot(ids, token_table.shape[0], dtype=token_table.dtype)
    return oh @ token_table + position_table[: ids.shape[1]]
