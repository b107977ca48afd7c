import jax.numpy as jnp
from jax import lax


def position_embedding_gather(positions, embedding_table):
    n, t = positions.shape
    d = embedding_table.shape[1]
    out = []
    for b in range(n):
        rows = []
        for s in range(t):
            i = positions[b, s].astype(jnp.int32)
            rows.append(lax.dynamic_slice(embedding_table, (i, 0), (1, d))[0])
        out.append(jnp.stack(rows))
    return jnp.stack(out)
