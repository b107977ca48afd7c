import flax.linen as nn
import jax
import jax.numpy as jnp


class PositionTable(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, T):
        table = self.param("pos_embed", nn.initializers.normal(stddev=0.02), (32, self.d_model))
        return table[:T]


def learned_pos_embed_forward(seed, T, d_model):
    T = int(T)
    model = PositionTable(int(d_model))
    params = model.init(jax.random.PRNGKey(seed), T)
    return jnp.ravel(model.apply(params, T))
