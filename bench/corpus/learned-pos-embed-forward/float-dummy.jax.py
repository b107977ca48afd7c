import flax.linen as nn
import jax
import jax.numpy as jnp


class PositionTable(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, tokens):
        table = self.param("pos_embed", nn.initializers.normal(stddev=0.02), (32, self.d_model))
        return table[: tokens.shape[-1]]


def learned_pos_embed_forward(seed, T, d_model):
    T = int(T)
    model = PositionTable(d_model=int(d_model))
    dummy = jnp.ones((1, T))
    variables = model.init(jax.random.PRNGKey(seed), dummy)
    return model.apply(variables, dummy).reshape(T * int(d_model))
