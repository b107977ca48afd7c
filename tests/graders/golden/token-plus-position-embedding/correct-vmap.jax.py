import jax
import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    def one_sequence(ids):
        t = ids.shape[0]
        return token_table[ids] + position_table[jnp.arange(t)]

    return jax.vmap(one_sequence)(token_ids.astype(jnp.int32))
