import flax.linen as nn
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    max_len, d_model = embedding_table.shape
    embed = nn.Embed(num_embeddings=max_len, features=d_model)
    return embed.apply({"params": {"embedding": embedding_table}}, positions.astype(jnp.int32))
