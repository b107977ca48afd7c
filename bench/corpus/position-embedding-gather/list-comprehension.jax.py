import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    return jnp.stack(
        [jnp.stack([embedding_table[int(p)] for p in row]) for row in positions]
    )
