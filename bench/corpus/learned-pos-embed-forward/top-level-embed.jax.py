import flax.linen as nn
import jax
import jax.numpy as jnp


def learned_pos_embed_forward(seed, T, d_model):
    T, d_model = int(T), int(d_model)
    embed = nn.Embed(32, d_model, embedding_init=nn.initializers.normal(0.02))
    ids = jnp.arange(T)
    variables = embed.init(jax.random.PRNGKey(seed), ids)
    return embed.apply(variables, ids).ravel()
