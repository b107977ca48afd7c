import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    seqs = []
    for row in positions:
        seqs.append(jnp.take(embedding_table, row.astype(jnp.int32), axis=0))
    return jnp.stack(seqs, axis=0)
