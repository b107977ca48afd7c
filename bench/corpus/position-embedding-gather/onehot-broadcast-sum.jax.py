import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    oh = jax.nn.one_hot(positions.astype(jnp.int32), embedding_table.shape[0])  # (N, T, M)
    return (oh[..., None] * embedding_table[None, None]).sum(axis=2)
