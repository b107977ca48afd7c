import jax.numpy as jnp


def embed_with_positions(token_ids, token_table, position_table):
    t = token_ids.shape[1]
    out = []
    for row in token_ids:
        out.append(token_table[row.astype(jnp.int32)] + position_table[:t])
    return jnp.stack(out)
