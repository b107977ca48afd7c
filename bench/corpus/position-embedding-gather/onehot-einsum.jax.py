import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    oh = jax.nn.one_hot(positions, embedding_table.shape[0])
    return jnp.einsum("ntm,md->ntd", oh, embedding_table)
