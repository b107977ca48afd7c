import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    max_len = embedding_table.shape[0]
    onehot = jax.nn.one_hot(positions.astype(jnp.int32), max_len, dtype=embedding_table.dtype)
    return onehot @ embedding_table
