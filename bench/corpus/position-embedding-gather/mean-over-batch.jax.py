import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    out = embedding_table[positions.astype(jnp.int32)]
    return jnp.broadcast_to(out.mean(axis=0), out.shape)
