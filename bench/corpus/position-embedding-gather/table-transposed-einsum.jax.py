import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    oh = jax.nn.one_hot(positions.astype(jnp.int32), embedding_table.shape[0])
    return jnp.einsum("ntm,dm->ntd", oh, embedding_table.T)
