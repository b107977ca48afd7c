import flax.linen as nn
import jax
import jax.numpy as jnp


class PositionTable(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, tokens):
        table = self.param("pos_embed", nn.initializers.normal(stddev=0.2), (32, self.d_model))
        return table[: tokens.shape[-1]]


def learned_pos_embed_forward(seed, T, d_model):
    T, d_model = int(T), int(d_model)
    model = PositionTable(d_model=d_model)
    x = jnp.zeros((1, T), jnp.int32)
    params = model.init(jax.random.PRNGKey(seed), x)
    return model.apply(params, x).reshape(-1)
