# Known mistake 'embed-submodule' (copied from mistakes.yaml): Wrapped an nn.Embed submodule instead of creating the parameter.
import flax.linen as nn
import jax
import jax.numpy as jnp


class PosEmbed(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, tokens):
        init = nn.initializers.normal(stddev=0.02)
        embed = nn.Embed(32, self.d_model, embedding_init=init, name="pos_embed")
        return embed(jnp.arange(tokens.shape[-1]))


def learned_pos_embed_forward(seed, T, d_model):
    T, d_model = int(T), int(d_model)
    module = PosEmbed(d_model=d_model)
    dummy = jnp.zeros((1, T), dtype=jnp.int32)
    variables = module.init(jax.random.PRNGKey(seed), dummy)
    return module.apply(variables, dummy).reshape(-1)
