import flax.linen as nn
import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    ids = token_ids.astype(jnp.int32)
    v, d = token_table.shape
    tok = nn.Embed(v, d).apply({"params": {"embedding": token_table}}, ids)
    t = ids.shape[1]
    pos = nn.Embed(position_table.shape[0], d).apply(
        {"params": {"embedding": position_table}}, jnp.arange(t)
    )
    return tok + pos
