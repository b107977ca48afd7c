import flax.linen as nn
import jax
import jax.numpy as jnp


class PositionTable(nn.Module):
    d_model: int
    max_t: int = 32

    @nn.compact
    def __call__(self, t):
        table = self.param(
            "pos_embed", nn.initializers.normal(stddev=0.02), (self.max_t, self.d_model)
        )
        return table[:t]


def learned_pos_embed_forward(seed, T, d_model):
    module = PositionTable(d_model=int(d_model))
    variables = module.init(jax.random.PRNGKey(seed), int(T))
    return jnp.ravel(module.apply(variables, int(T)))
